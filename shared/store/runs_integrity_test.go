package store_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// emulators are the DynamoDB emulators the runs-table integrity tests run
// on, each returning a fresh client.
func emulators(t *testing.T) map[string]func(t *testing.T) *dynamodb.Client {
	moto := testenv.Moto(t, testenv.MotoOptions{})
	return map[string]func(t *testing.T) *dynamodb.Client{
		"minidyn": func(t *testing.T) *dynamodb.Client { return testenv.Minidyn(t) },
		"moto":    func(t *testing.T) *dynamodb.Client { return testenv.DynamoDBClient(t, moto) },
	}
}

// backend is a DynamoDB emulator a test runs on, by name.
type backend struct {
	name   string
	client func(t *testing.T) *dynamodb.Client
}

// freshBackends are minidyn and moto, each call of client starting a
// server of its own: for tests whose subtests must not see each other's
// tables or items, which one shared moto_server would keep.
func freshBackends() []backend {
	return []backend{
		{"minidyn", func(t *testing.T) *dynamodb.Client { return testenv.Minidyn(t) }},
		{"moto", func(t *testing.T) *dynamodb.Client {
			return testenv.DynamoDBClient(t, testenv.Moto(t, testenv.MotoOptions{}))
		}},
	}
}

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// TestNewRequestNeverReadsOldResult: once a request has expired, a
// different request that claims its id is never served the old request's
// answer (docs/contract.md#query-ids): the result of a run expires with
// the run, whenever it was saved, and a claim replaces whatever result the
// id had, also one with no expiry (as the state machine once wrote).
func TestNewRequestNeverReadsOldResult(t *testing.T) {
	const ttl = time.Hour
	cases := []struct {
		name string
		// expiresWithRun: the old result is gone with its request, before
		// any new claim.
		expiresWithRun bool
		// old leaves a result under the id, the clock at its start.
		old func(t *testing.T, ctx context.Context, s stores, c *clock, client *dynamodb.Client, tables store.Tables)
	}{
		{"a result saved late in its run", true, func(t *testing.T, ctx context.Context, s stores, c *clock, _ *dynamodb.Client, _ store.Tables) {
			_, created, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q", Query: "old question"}, "")
			require.NoError(t, err)
			require.True(t, created)
			plan := globalsearch.Plan{RunID: "run-old", Params: globalsearch.Params{QueryID: "q", Query: "old question"}}
			require.NoError(t, s.SavePlan(ctx, plan))
			c.now = c.now.Add(ttl / 2)
			require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "q", Status: globalsearch.StatusCompleted, Answer: "old answer"}, "run-old"))
		}},
		{"a result item without expiry", false, func(t *testing.T, ctx context.Context, s stores, _ *clock, client *dynamodb.Client, tables store.Tables) {
			_, created, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q", Query: "old question"}, "")
			require.NoError(t, err)
			require.True(t, created)
			_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tables.Runs), Item: map[string]types.AttributeValue{
				"queryId": &types.AttributeValueMemberS{Value: "q"}, "sk": &types.AttributeValueMemberS{Value: "result"},
				"status": &types.AttributeValueMemberS{Value: "failed"}, "error": &types.AttributeValueMemberS{Value: "Runtime.ExitError"},
			}})
			require.NoError(t, err)
		}},
	}
	for emu, open := range emulators(t) {
		for _, tc := range cases {
			t.Run(emu+"/"+tc.name, func(t *testing.T) {
				ctx := context.Background()
				client := open(t)
				tables := newTables(t, client)
				c := &clock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
				s := newStores(t, client, tables, store.WithClock(c.Now), store.WithTTL(ttl))
				start := c.now
				tc.old(t, ctx, s, c, client, tables)
				_, err := s.Result(ctx, "q")
				require.NoError(t, err, "the old request's result reads while its request lives")

				c.now = start.Add(ttl + time.Second)
				_, err = s.Request(ctx, "q")
				require.ErrorIs(t, err, globalsearch.ErrNotFound, "the old request has expired")
				if tc.expiresWithRun {
					_, err = s.Result(ctx, "q")
					assert.ErrorIs(t, err, globalsearch.ErrNotFound, "its result expired with it")
				}

				fresh := globalsearch.Params{QueryID: "q", Query: "a new question"}
				_, created, err := s.CreateRequest(ctx, fresh, "")
				require.NoError(t, err)
				require.True(t, created, "the expired id is claimed again")
				_, err = s.Result(ctx, "q")
				assert.ErrorIs(t, err, globalsearch.ErrNotFound, "the new request has no result yet")
				c.now = c.now.Add(ttl / 2)
				_, err = s.Result(ctx, "q")
				assert.ErrorIs(t, err, globalsearch.ErrNotFound, "not even later, before its run saves one")
			})
		}
	}
}

// planGate blocks the first call that writes a plan item (the switch to a
// new run) until release is closed, after telling reached.
type planGate struct {
	store.DynamoDBAPI
	once    sync.Once
	reached chan struct{}
	release chan struct{}
}

func writesPlan(items ...map[string]types.AttributeValue) bool {
	for _, it := range items {
		if sk, ok := it["sk"].(*types.AttributeValueMemberS); ok && sk.Value == "plan" {
			return true
		}
	}
	return false
}

func (g *planGate) wait() {
	g.once.Do(func() {
		close(g.reached)
		<-g.release
	})
}

func (g *planGate) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if writesPlan(in.Item) {
		g.wait()
	}
	return g.DynamoDBAPI.PutItem(ctx, in, o...)
}

func (g *planGate) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put != nil && writesPlan(it.Put.Item) {
			g.wait()
		}
	}
	return g.DynamoDBAPI.TransactWriteItems(ctx, in, o...)
}

// runPlan is a plan of run id with n batches whose content names the run.
func runPlan(queryID, runID string, n int) globalsearch.Plan {
	p := globalsearch.Plan{RunID: runID, Params: globalsearch.Params{QueryID: queryID, Query: "q?"}, Batches: []globalsearch.Batch{}}
	for i := range n {
		p.Batches = append(p.Batches, globalsearch.Batch{RunID: runID, Index: i, CommunityIDs: []string{fmt.Sprintf("c%d", i)},
			EstimatedTokens: 10 + i, Content: fmt.Sprintf("batch %d of %s", i, runID)})
	}
	return p
}

// TestRacingPrepares: two prepares of one request save their plans at
// once (docs/contract.md#query-ids). Prepare A reads the current plan and
// writes its batches, then waits at its switch to the new run while
// prepare B saves a whole plan; then A goes on. Exactly one run proceeds:
// B's plan reads whole, B saves its result, and A gets a clear error and
// can save nothing.
func TestRacingPrepares(t *testing.T) {
	for emu, open := range emulators(t) {
		t.Run(emu, func(t *testing.T) {
			ctx := context.Background()
			client := open(t)
			tables := newTables(t, client)
			s := newStores(t, client, tables)
			_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q", Query: "q?"}, "")
			require.NoError(t, err)
			gate := &planGate{DynamoDBAPI: client, reached: make(chan struct{}), release: make(chan struct{})}
			a := newStores(t, gate, tables)

			planA, planB := runPlan("q", "run-a", 3), runPlan("q", "run-b", 2)
			errA := make(chan error, 1)
			go func() { errA <- a.SavePlan(ctx, planA) }()
			<-gate.reached
			require.NoError(t, s.SavePlan(ctx, planB), "the prepare that switches first")
			close(gate.release)
			err = <-errA

			require.Error(t, err, "the prepare that switches second")
			assert.ErrorIs(t, err, globalsearch.ErrNotFound)
			assert.Contains(t, err.Error(), "run run-a is no longer the current run")
			got, err := s.Plan(ctx, "q")
			require.NoError(t, err, "the current plan reads whole")
			assert.Equal(t, planB, got)
			meta, err := s.PlanMeta(ctx, "q")
			require.NoError(t, err)
			assert.Equal(t, "run-b", meta.RunID, "a reduce of run-a is refused as a replaced run")
			for i := range 2 {
				b, err := s.Batch(ctx, "q", i)
				require.NoError(t, err)
				assert.Equal(t, planB.Batches[i], b, "a map task reads run-b's batch, and refuses run-a's")
			}
			_, err = s.Batch(ctx, "q", 2)
			assert.ErrorIs(t, err, globalsearch.ErrNotFound, "run-a's third batch is not the current plan's")
			assert.ErrorIs(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "q", Status: globalsearch.StatusCompleted}, "run-a"), globalsearch.ErrNotFound, "the losing run saves nothing")
			require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "q", Status: globalsearch.StatusCompleted, Answer: "b"}, "run-b"), "the winning run finishes")
			res, err := s.Result(ctx, "q")
			require.NoError(t, err)
			assert.Equal(t, "b", res.Answer)
		})
	}
}

// TestSavePlanFailsMidway: a failure at any write call of SavePlan leaves
// a plan that reads whole: the previous run, byte-identical with its
// result, when the save fails; the new run when it succeeds
// (docs/contract.md#query-ids). The plans have more batches than one
// BatchWriteItem call holds.
func TestSavePlanFailsMidway(t *testing.T) {
	const oldBatches, newBatches = 40, 30
	for emu, open := range emulators(t) {
		t.Run(emu, func(t *testing.T) {
			ctx := context.Background()
			client := open(t)
			// How many write calls a save makes, counted on a clean one.
			count := &writeFault{DynamoDBAPI: client}
			counted := newStores(t, count, newTables(t, client))
			require.NoError(t, counted.SavePlan(ctx, runPlan("q", "run-old", oldBatches)))
			count.writes.Store(0)
			require.NoError(t, counted.SavePlan(ctx, runPlan("q", "run-new", newBatches)))
			calls := int(count.writes.Load())
			require.Greater(t, calls, 2, "the save makes several write calls")

			for n := 1; n <= calls; n++ {
				t.Run(fmt.Sprintf("write %d of %d", n, calls), func(t *testing.T) {
					tables := newTables(t, client)
					s := newStores(t, client, tables, store.WithBackoff(fastBackoff))
					old := runPlan("q", "run-old", oldBatches)
					require.NoError(t, s.SavePlan(ctx, old))
					oldResult := globalsearch.Result{QueryID: "q", Status: globalsearch.StatusCompleted, Answer: "old answer"}
					require.NoError(t, s.SaveResult(ctx, oldResult, "run-old"))
					before, err := s.Result(ctx, "q")
					require.NoError(t, err)

					f := &writeFault{DynamoDBAPI: client, failAt: int64(n)}
					saveErr := newStores(t, f, tables, store.WithBackoff(fastBackoff)).SavePlan(ctx, runPlan("q", "run-new", newBatches))
					got, err := s.Plan(ctx, "q")
					require.NoError(t, err, "a plan reads whole after a failure at write %d (save: %v)", n, saveErr)
					if saveErr != nil {
						assert.ErrorIs(t, saveErr, errInjected)
						assert.Equal(t, old, got, "the previous run reads whole")
						after, err := s.Result(ctx, "q")
						require.NoError(t, err)
						assert.Equal(t, before, after, "beside its result")
						return
					}
					assert.Equal(t, runPlan("q", "run-new", newBatches), got, "the new run reads whole")
					_, err = s.Result(ctx, "q")
					assert.ErrorIs(t, err, globalsearch.ErrNotFound, "the new run has no result yet")
				})
			}
		})
	}
}

// TestRunItemsShareOneExpiry: what a run writes after its plan (map answers,
// the reduce count, a map attempts tally) expires with the plan, however late it is written, so
// no item of a run outlives the others (docs/contract.md#tables). A late
// write of a replaced run cannot follow a plan that is no longer its own.
func TestRunItemsShareOneExpiry(t *testing.T) {
	const ttl = time.Hour
	for emu, open := range emulators(t) {
		t.Run(emu, func(t *testing.T) {
			ctx := context.Background()
			client := open(t)
			tables := newTables(t, client)
			c := &clock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
			s := newStores(t, client, tables, store.WithClock(c.Now), store.WithTTL(ttl))
			require.NoError(t, s.SavePlan(ctx, runPlan("q", "run-a", 2)))
			planExpiry := c.now.Add(ttl).Unix()
			expiry := func(sk string) int64 {
				t.Helper()
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tables.Runs), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
					"queryId": &types.AttributeValueMemberS{Value: "q"}, "sk": &types.AttributeValueMemberS{Value: sk},
				}})
				require.NoError(t, err)
				n, ok := out.Item["expiresAt"].(*types.AttributeValueMemberN)
				require.True(t, ok, "item %s has an expiresAt", sk)
				v, err := strconv.ParseInt(n.Value, 10, 64)
				require.NoError(t, err)
				return v
			}
			require.Equal(t, planExpiry, expiry("plan"))

			c.now = c.now.Add(ttl / 2)
			require.NoError(t, s.SaveMapAnswer(ctx, "q", "run-a", globalsearch.MapAnswer{BatchIndex: 1, Answer: "a", Usefulness: 50}))
			_, err := s.AddReduceCall(ctx, "q", "run-a")
			require.NoError(t, err)
			assert.Equal(t, planExpiry, expiry("answer#run-a#000001"), "the answer expires with its run")
			assert.Equal(t, planExpiry, expiry("reduce-calls#run-a"), "so does the reduce count")
			require.NoError(t, s.AddMapAttempt(ctx, "q", "run-a", globalsearch.MapAttempt{BatchIndex: 1, Calls: 1, InputTokens: 9}))
			assert.Equal(t, planExpiry, expiry("map-attempt#run-a#000001"), "and a map attempts tally")

			require.NoError(t, s.SavePlan(ctx, runPlan("q", "run-b", 1)))
			require.NoError(t, s.SaveMapAnswer(ctx, "q", "run-a", globalsearch.MapAnswer{BatchIndex: 0, Answer: "late", Usefulness: 50}))
			assert.Equal(t, c.now.Add(ttl).Unix(), expiry("answer#run-a#000000"), "a replaced run's late answer has a lifetime of its own")
		})
	}
}
