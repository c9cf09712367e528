package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// latencyClient adds a fixed delay to every read, as a network round trip
// to DynamoDB would, and records how many reads of each kind were in
// flight at once.
type latencyClient struct {
	store.DynamoDBAPI
	latency time.Duration

	// gates, when set, hold each read of a kind until that many are in
	// flight at once (then never again): overlap is proven by the reads
	// meeting, not by how long they happen to take. gateTimeout is only
	// the failure path.
	gates map[string]*gate

	mu                 sync.Mutex
	calls, now, maxNow map[string]int
	anyNow, anyMaxNow  int
}

type gate struct {
	want int
	open chan struct{}
}

const gateTimeout = 10 * time.Second

func newGates(want map[string]int) map[string]*gate {
	gates := map[string]*gate{}
	for op, n := range want {
		gates[op] = &gate{want: n, open: make(chan struct{})}
	}
	return gates
}

func (c *latencyClient) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.now, c.maxNow = map[string]int{}, map[string]int{}, map[string]int{}
	c.anyNow, c.anyMaxNow = 0, 0
}

func (c *latencyClient) enter(op string) func() {
	c.mu.Lock()
	c.calls[op]++
	c.now[op]++
	c.anyNow++
	c.maxNow[op] = max(c.maxNow[op], c.now[op])
	c.anyMaxNow = max(c.anyMaxNow, c.anyNow)
	g := c.gates[op]
	if g != nil && c.now[op] >= g.want {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
	}
	c.mu.Unlock()
	if g != nil {
		select {
		case <-g.open:
		case <-time.After(gateTimeout):
		}
	}
	time.Sleep(c.latency)
	return func() {
		c.mu.Lock()
		c.now[op]--
		c.anyNow--
		c.mu.Unlock()
	}
}

func (c *latencyClient) snapshot() (calls, maxInFlight map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls, maxInFlight = map[string]int{}, map[string]int{}
	for k, v := range c.calls {
		calls[k] = v
	}
	for k, v := range c.maxNow {
		maxInFlight[k] = v
	}
	return calls, maxInFlight
}

func (c *latencyClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	// A namespace's head is read alone, before and after the records, so
	// it is counted apart and never held at the records' gate.
	if isHeadQuery(in) {
		defer c.enter("QueryHead")()
	} else {
		defer c.enter("Query")()
	}
	return c.DynamoDBAPI.Query(ctx, in, o...)
}

func (c *latencyClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	defer c.enter("BatchGetItem")()
	return c.DynamoDBAPI.BatchGetItem(ctx, in, o...)
}

// isHeadQuery reports whether a Query reads a namespace's head item.
func isHeadQuery(in *dynamodb.QueryInput) bool {
	for _, v := range in.ExpressionAttributeValues {
		if sv, ok := v.(*types.AttributeValueMemberS); ok && sv.Value == "#head" {
			return true
		}
	}
	return false
}

// prepareReads is a namespace stored behind a latencyClient and the
// request counts its plan's reads take at the least.
type prepareReads struct {
	engine        *globalsearch.Engine
	client        *latencyClient
	params        globalsearch.Params
	queryPages    [3]int // summaries, claims, chunks (when read by Query)
	chunkRequests int
}

const loadPageLimit = 100

// chunkText is the text of each chunk: 4 KB, so that a chunk costs a read
// unit by key as by Query, and the cited chunks are read by key (readKind
// reads them all with one Query when that is cheaper).
var chunkText = strings.Repeat("x", 4096)

func newPrepareReads(t testing.TB, leaves int, latency time.Duration, text string) prepareReads {
	ctx := context.Background()
	raw := testenv.Minidyn(t)
	tables := store.Tables{Index: "load-index"}
	require.NoError(t, store.CreateTables(ctx, raw, tables))
	r := generate(leaves)
	for i := range r.Chunks {
		r.Chunks[i].Text += text
	}
	require.NoError(t, newIndex(t, raw, tables.Index).ReplaceNamespace(ctx, "ns", r))
	client := &latencyClient{DynamoDBAPI: raw, latency: latency}
	client.reset()
	s := newIndex(t, client, tables.Index, store.WithQueryLimit(loadPageLimit))
	d := globalsearch.SpecDefaults
	d.MaxModelCalls = 1 << 20 // 4 KB chunks make many batches: only the reads count here
	p, err := globalsearch.Request{Namespace: "ns", Query: "What are the themes?"}.Params(d)
	require.NoError(t, err)
	pages := func(n int) int { return n/loadPageLimit + 1 } // a full last page needs one more
	return prepareReads{
		engine: &globalsearch.Engine{Index: s}, client: client, params: p,
		queryPages:    [3]int{pages(len(r.Summaries)), pages(len(r.Claims)), pages(len(r.Chunks))},
		chunkRequests: ceilDiv(len(citedChunkIDs(r)), 100),
	}
}

// TestPrepareReadsConcurrently: the summaries and claims Query chains
// overlap, chunk BatchGetItems go several at a time but no more than the
// bound, and no read is added to get there; small chunks, every one cited,
// are one more Query chain instead, cheaper in read units.
func TestPrepareReadsConcurrently(t *testing.T) {
	tests := []struct {
		name         string
		leaves       int
		text         string
		wantQueries  int // at least this many Query requests in flight at once
		wantBatchGet int
	}{
		{"one chunk request", 40, chunkText, 2, 1},
		{"many chunk requests", 1200, chunkText, 2, 8},
		{"small chunks: one Query of all", 1200, "", 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := newPrepareReads(t, tc.leaves, 0, tc.text)
			gates := map[string]int{"Query": tc.wantQueries}
			if tc.wantBatchGet > 0 {
				gates["BatchGetItem"] = tc.wantBatchGet
			}
			pr.client.gates = newGates(gates)
			plan, err := pr.engine.Plan(context.Background(), pr.params)
			require.NoError(t, err)
			require.NotEmpty(t, plan.Batches)
			require.Zero(t, plan.MissingChunks)

			calls, inFlight := pr.client.snapshot()
			wantQueries, wantGets := pr.queryPages[0]+pr.queryPages[1], pr.chunkRequests
			if tc.wantBatchGet == 0 {
				wantQueries, wantGets = wantQueries+pr.queryPages[2], 0
			}
			assert.Equal(t, wantQueries, calls["Query"], "one Query per page")
			assert.Equal(t, 2, calls["QueryHead"], "the version read once before the records and once after")
			assert.Equal(t, wantGets, calls["BatchGetItem"], "one BatchGetItem per 100 chunks")
			assert.GreaterOrEqual(t, inFlight["Query"], tc.wantQueries, "summaries and claims read together")
			assert.Equal(t, tc.wantBatchGet, inFlight["BatchGetItem"], "chunk reads in flight, bounded")
		})
	}
}

// BenchmarkPrepareReads is prepare's index reads (Engine.Plan, no model)
// with no added latency (the emulator's and the decoding's own cost) and
// with 10 ms per request. The difference of the two ns/op compares with
// chain-ms, the longest chain of dependent requests (the longer of the two
// Query chains, or the claims chain then the chunk reads 8 at a time), and
// with sum-ms, every request one after the other.
func BenchmarkPrepareReads(b *testing.B) {
	for _, latency := range []time.Duration{0, 10 * time.Millisecond} {
		b.Run("latency="+latency.String(), func(b *testing.B) {
			pr := newPrepareReads(b, 2000, latency, chunkText)
			ms := float64(latency) / float64(time.Millisecond)
			chain := 2 + max(pr.queryPages[0], pr.queryPages[1]+ceilDiv(pr.chunkRequests, 8)) // the head before and after
			total := pr.queryPages[0] + pr.queryPages[1] + pr.chunkRequests + 2               // and the head, before and after
			pr.client.reset()
			for b.Loop() {
				if _, err := pr.engine.Plan(context.Background(), pr.params); err != nil {
					b.Fatal(err)
				}
			}
			calls, _ := pr.client.snapshot()
			b.ReportMetric(float64(calls["Query"]+calls["QueryHead"]+calls["BatchGetItem"])/float64(b.N), "requests/op")
			b.ReportMetric(float64(total), "min-requests/op")
			b.ReportMetric(float64(chain)*ms, "chain-ms")
			b.ReportMetric(float64(total)*ms, "sum-ms")
		})
	}
}

func (c *latencyClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	defer c.enter("BatchWriteItem")()
	return c.DynamoDBAPI.BatchWriteItem(ctx, in, o...)
}

func (c *latencyClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	defer c.enter("GetItem")()
	return c.DynamoDBAPI.GetItem(ctx, in, o...)
}

func (c *latencyClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	defer c.enter("TransactWriteItems")()
	return c.DynamoDBAPI.TransactWriteItems(ctx, in, o...)
}

func (c *latencyClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	defer c.enter("PutItem")()
	return c.DynamoDBAPI.PutItem(ctx, in, o...)
}

// planWrites is a plan saved through a latencyClient, and the
// BatchWriteItems its save takes at the least: its batches, 25 to a call
// (the request and result items go with the plan item's switch).
type planWrites struct {
	store      *store.Runs
	client     *latencyClient
	plan       globalsearch.Plan
	batchWrite int
}

func newPlanWrites(t testing.TB, batches, contentBytes int, latency time.Duration) planWrites {
	raw := testenv.Minidyn(t)
	tables := store.Tables{Runs: "load-runs"}
	require.NoError(t, store.CreateTables(context.Background(), raw, tables))
	plan := globalsearch.Plan{RunID: "run-1", Params: globalsearch.Params{QueryID: "q"}, SummaryCount: batches}
	content := strings.Repeat("x", contentBytes)
	for i := range batches {
		plan.Batches = append(plan.Batches, globalsearch.Batch{Index: i, CommunityIDs: []string{fmt.Sprintf("c%05d", i)}, Content: content})
	}
	client := &latencyClient{DynamoDBAPI: raw, latency: latency}
	client.reset()
	return planWrites{
		store: newRuns(t, client, tables.Runs), client: client, plan: plan,
		batchWrite: ceilDiv(batches, 25),
	}
}

// TestSavePlanWritesConcurrently: a plan's BatchWriteItems go several at a
// time but no more than the bound, with no request added to get there.
func TestSavePlanWritesConcurrently(t *testing.T) {
	tests := []struct {
		name       string
		batches    int
		wantWrites int // BatchWriteItems in flight at once
	}{
		{"one write request", 10, 1},
		{"two write requests", 30, 2},
		{"many write requests", 1200, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pw := newPlanWrites(t, tc.batches, 100, 0)
			pw.client.gates = newGates(map[string]int{"BatchWriteItem": tc.wantWrites})
			require.NoError(t, pw.store.SavePlan(context.Background(), pw.plan))

			calls, inFlight := pw.client.snapshot()
			assert.Equal(t, pw.batchWrite, calls["BatchWriteItem"], "one BatchWriteItem per 25 items")
			assert.Zero(t, calls["PutItem"])
			assert.Equal(t, 1, calls["TransactWriteItems"], "the switch to the new run, last")
			assert.Equal(t, tc.wantWrites, inFlight["BatchWriteItem"], "writes in flight, bounded")
			saved, err := pw.store.Plan(context.Background(), "q")
			require.NoError(t, err)
			assert.Len(t, saved.Batches, tc.batches, "every batch saved")
		})
	}
}

// BenchmarkSavePlan is prepare's plan save on DynamoDB (minidyn): 1,200
// batches of 1 KB, with no added latency and with 10 ms per request. The
// difference of the two ns/op compares with chain-ms, the requests one
// after the other save the BatchWriteItems that go 8 at a time (the GetItem
// of the previous plan, the writes, the switch's TransactWriteItems), and with
// sum-ms, every request one after the other.
func BenchmarkSavePlan(b *testing.B) {
	for _, latency := range []time.Duration{0, 10 * time.Millisecond} {
		b.Run("latency="+latency.String(), func(b *testing.B) {
			pw := newPlanWrites(b, 1200, 1024, latency)
			ms := float64(latency) / float64(time.Millisecond)
			pw.client.reset()
			for b.Loop() {
				if err := pw.store.SavePlan(context.Background(), pw.plan); err != nil {
					b.Fatal(err)
				}
			}
			calls, _ := pw.client.snapshot()
			requests := 0
			for _, n := range calls {
				requests += n
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(pw.batchWrite+2), "min-requests/op")
			b.ReportMetric(float64(2+ceilDiv(pw.batchWrite, 8))*ms, "chain-ms")
			b.ReportMetric(float64(pw.batchWrite+2)*ms, "sum-ms")
		})
	}
}
