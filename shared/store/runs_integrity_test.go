package store_test

import (
	"context"
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
		old func(t *testing.T, ctx context.Context, s *store.Store, c *clock, client *dynamodb.Client, tables store.Tables)
	}{
		{"a result saved late in its run", true, func(t *testing.T, ctx context.Context, s *store.Store, c *clock, _ *dynamodb.Client, _ store.Tables) {
			_, created, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q", Query: "old question"}, "")
			require.NoError(t, err)
			require.True(t, created)
			plan := globalsearch.Plan{RunID: "run-old", Params: globalsearch.Params{QueryID: "q", Query: "old question"}}
			require.NoError(t, s.SavePlan(ctx, plan))
			c.now = c.now.Add(ttl / 2)
			require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "q", Status: globalsearch.StatusCompleted, Answer: "old answer"}, "run-old"))
		}},
		{"a result item without expiry", false, func(t *testing.T, ctx context.Context, s *store.Store, _ *clock, client *dynamodb.Client, tables store.Tables) {
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
				s := store.New(client, tables, store.WithClock(c.Now), store.WithTTL(ttl))
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
