package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/truora/minidyn/server"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

var tableSeq atomic.Int64

// newTables creates a fresh pair of tables, so tests can share one
// emulator.
func newTables(t *testing.T, client store.TablesAPI) store.Tables {
	t.Helper()
	n := tableSeq.Add(1)
	tables := store.Tables{Index: fmt.Sprintf("index-%d", n), Runs: fmt.Sprintf("runs-%d", n)}
	require.NoError(t, store.CreateTables(context.Background(), client, tables))
	return tables
}

// stores is the index and the runs table of one test over one client: the
// conformance suite takes both in one value.
type stores struct {
	*store.Index
	*store.Runs
}

func newStores(t testing.TB, api store.DynamoDBAPI, tables store.Tables, opts ...store.Option) stores {
	t.Helper()
	c := store.NewClient(api, opts...)
	idx, err := store.NewIndex(c, tables.Index)
	require.NoError(t, err)
	runs, err := store.NewRuns(c, tables.Runs)
	require.NoError(t, err)
	return stores{idx, runs}
}

func newIndex(t testing.TB, api store.DynamoDBAPI, table string, opts ...store.Option) *store.Index {
	t.Helper()
	idx, err := store.NewIndex(store.NewClient(api, opts...), table)
	require.NoError(t, err)
	return idx
}

func newRuns(t testing.TB, api store.DynamoDBAPI, table string, opts ...store.Option) *store.Runs {
	t.Helper()
	runs, err := store.NewRuns(store.NewClient(api, opts...), table)
	require.NoError(t, err)
	return runs
}

// fastBackoff keeps retry tests in milliseconds.
var fastBackoff = store.Backoff{Base: time.Millisecond, Max: 4 * time.Millisecond, Attempts: 3}

func TestConformanceMinidyn(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		client := testenv.Minidyn(t)
		// minidyn ignores the 1 MB page size; a small page limit makes the
		// suite cross page boundaries all the same. Shards of 256 bytes spread
		// most of its namespaces over several partitions, so the suite
		// holds the sharded layout to every rule (moto's run below keeps
		// the default, one partition for a namespace of this size).
		return newStores(t, client, newTables(t, client), store.WithQueryLimit(25), store.WithShardBytes(256))
	})
}

func TestConformanceMoto(t *testing.T) {
	client := testenv.DynamoDBClient(t, testenv.Moto(t, testenv.MotoOptions{}))
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return newStores(t, client, newTables(t, client))
	})
}

// fakeClient wraps a real client; a non-nil function field replaces that
// call. It counts every call.
type fakeClient struct {
	next           store.DynamoDBAPI
	query          func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error)
	getItem        func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error)
	putItem        func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error)
	batchGetItem   func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error)
	batchWriteItem func(context.Context, *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error)
	updateItem     func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error)
	transactWrite  func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error)

	mu    sync.Mutex
	calls map[string]int
}

func (f *fakeClient) count(op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[op]++
}

func (f *fakeClient) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.calls {
		out[k] = v
	}
	return out
}

func (f *fakeClient) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

func (f *fakeClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	f.count("Query")
	if f.query != nil {
		return f.query(ctx, in)
	}
	return f.next.Query(ctx, in, o...)
}

func (f *fakeClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.count("GetItem")
	if f.getItem != nil {
		return f.getItem(ctx, in)
	}
	return f.next.GetItem(ctx, in, o...)
}

func (f *fakeClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	f.count("PutItem")
	if f.putItem != nil {
		return f.putItem(ctx, in)
	}
	return f.next.PutItem(ctx, in, o...)
}

func (f *fakeClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	f.count("BatchGetItem")
	if f.batchGetItem != nil {
		return f.batchGetItem(ctx, in)
	}
	return f.next.BatchGetItem(ctx, in, o...)
}

func (f *fakeClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.count("BatchWriteItem")
	if f.batchWriteItem != nil {
		return f.batchWriteItem(ctx, in)
	}
	return f.next.BatchWriteItem(ctx, in, o...)
}

func (f *fakeClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	f.count("UpdateItem")
	if f.updateItem != nil {
		return f.updateItem(ctx, in)
	}
	return f.next.UpdateItem(ctx, in, o...)
}

func (f *fakeClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.count("TransactWriteItems")
	if f.transactWrite != nil {
		return f.transactWrite(ctx, in)
	}
	return f.next.TransactWriteItems(ctx, in, o...)
}

// generate builds a namespace of n leaf summaries under one root, a claim
// per leaf citing two chunks, and the chunks.
func generate(n int) globalsearch.Records {
	r := globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "root", Summary: "root"}}}
	for i := range n {
		id := fmt.Sprintf("c%05d", i)
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: id, Level: 1, ParentCommunityID: "root", Summary: "summary of " + id})
		a, b := fmt.Sprintf("k%05d", 2*i), fmt.Sprintf("k%05d", 2*i+1)
		r.Claims = append(r.Claims, globalsearch.Claim{ID: "cl" + id, CommunityID: id, Subject: "s", Description: "d", SourceChunkIDs: []string{a, b}})
		r.Chunks = append(r.Chunks, globalsearch.Chunk{ID: a, Text: "chunk " + a}, globalsearch.Chunk{ID: b, Text: "chunk " + b})
	}
	return r
}

func citedChunkIDs(r globalsearch.Records) []string {
	var ids []string
	for _, c := range r.Claims {
		ids = append(ids, c.SourceChunkIDs...)
	}
	return ids
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// TestLoadRequests checks that loading a namespace costs one request per
// query page plus one per 100 cited chunks, or, when a Query of every chunk
// costs fewer read units (small chunks), one per page of them: no request
// per record.
func TestLoadRequests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string // added to each chunk's
		byQuery bool
	}{
		{name: "chunks by key", text: chunkText},
		{name: "chunks by one Query", byQuery: true},
	} {
		t.Run(tc.name, func(t *testing.T) { testLoadRequests(t, tc.text, tc.byQuery) })
	}
}

func testLoadRequests(t *testing.T, text string, byQuery bool) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	fake := &fakeClient{next: client}
	const pageLimit = 100
	s := newStores(t, fake, tables, store.WithQueryLimit(pageLimit))
	r := generate(450)
	for i := range r.Chunks {
		r.Chunks[i].Text += text
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", r))
	assert.Equal(t, ceilDiv(len(r.Summaries)+len(r.Claims)+len(r.Chunks), 25), fake.Calls()["BatchWriteItem"], "writes go 25 to a request")

	fake.Reset()
	snap, err := s.Open(ctx, "ns")
	require.NoError(t, err)
	sums, err := snap.Summaries(ctx)
	require.NoError(t, err)
	claims, err := snap.Claims(ctx)
	require.NoError(t, err)
	chunks, err := snap.Chunks(ctx, citedChunkIDs(r))
	require.NoError(t, err)
	require.Len(t, sums, len(r.Summaries))
	require.Len(t, claims, len(r.Claims))
	require.Len(t, chunks, len(r.Chunks))

	// A page that comes back full needs one more (empty) page to know it
	// was the last: hence the +1 when the count divides evenly.
	pages := func(n int) int { return n/pageLimit + 1 }
	calls := fake.Calls()
	queries, gets := 1+pages(len(r.Summaries))+pages(len(r.Claims)), ceilDiv(len(r.Chunks), 100)
	if byQuery {
		queries, gets = queries+pages(len(r.Chunks)), 0
	}
	assert.Equal(t, queries, calls["Query"], "the version, then the records")
	assert.Equal(t, gets, calls["BatchGetItem"])
	assert.Zero(t, calls["GetItem"], "no request per record")
}

// TestUnprocessed: unprocessed items and keys are sent again; an ingest
// whose records cannot all be written fails saying how many were not, and
// leaves the namespace reading exactly as before; once the fault is gone,
// the next ingest replaces it and leaves nothing of the failed one.
func TestUnprocessed(t *testing.T) {
	ctx := context.Background()
	r := generate(40) // 161 items: 7 write groups; 80 chunks
	old := generate(3)
	for _, rs := range []globalsearch.Records{r, old} {
		for i := range rs.Chunks { // read by key, not by one Query of all
			rs.Chunks[i].Text += chunkText
		}
	}
	tests := []struct {
		name string
		// leaveWrite and leaveGet say how many sub-requests of call number
		// n (from 0) of that size stay unprocessed.
		leaveWrite, leaveGet func(n, size int) int
		wantErr              bool
	}{
		{
			name:       "retried then succeed",
			leaveWrite: func(n, size int) int { return (n + 1) % 2 * size / 2 },
			leaveGet:   func(n, size int) int { return (n + 1) % 2 * size / 2 },
		},
		{
			name: "one stuck item exhausts the retries",
			// From the fourth write group on, one item is held back forever.
			leaveWrite: func(n, size int) int { return min(size, boolInt(n >= 3)) },
			leaveGet:   func(n, size int) int { return min(size, 1) },
			wantErr:    true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := testenv.Minidyn(t)
			tables := newTables(t, client)
			require.NoError(t, newStores(t, client, tables).ReplaceNamespace(ctx, "ns", old))
			var writes, gets, puts atomic.Int64
			var faulty atomic.Bool
			faulty.Store(true)
			fake := &fakeClient{next: client}
			fake.batchWriteItem = func(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				reqs := in.RequestItems[tables.Index]
				if !faulty.Load() {
					return client.BatchWriteItem(ctx, in)
				}
				n := tc.leaveWrite(int(writes.Add(1))-1, len(reqs))
				if n == len(reqs) {
					return &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{tables.Index: reqs}}, nil
				}
				if _, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tables.Index: reqs[n:]}}); err != nil {
					return nil, err
				}
				puts.Add(int64(countPuts(reqs[n:])))
				out := &dynamodb.BatchWriteItemOutput{}
				if n > 0 {
					out.UnprocessedItems = map[string][]types.WriteRequest{tables.Index: reqs[:n]}
				}
				return out, nil
			}
			fake.batchGetItem = func(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				keys := in.RequestItems[tables.Index].Keys
				if !faulty.Load() {
					return client.BatchGetItem(ctx, in)
				}
				n := tc.leaveGet(int(gets.Add(1))-1, len(keys))
				if n == len(keys) {
					return &dynamodb.BatchGetItemOutput{UnprocessedKeys: map[string]types.KeysAndAttributes{tables.Index: {Keys: keys}}}, nil
				}
				out, err := client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tables.Index: {Keys: keys[n:], ConsistentRead: aws.Bool(true)}}})
				if err != nil {
					return nil, err
				}
				if n > 0 {
					out.UnprocessedKeys = map[string]types.KeysAndAttributes{tables.Index: {Keys: keys[:n]}}
				}
				return out, nil
			}
			s := newStores(t, fake, tables, store.WithBackoff(fastBackoff))

			err := s.ReplaceNamespace(ctx, "ns", r)
			if tc.wantErr {
				require.Error(t, err)
				// Which groups are stuck depends on the order the concurrent
				// calls arrive in; the count must be the records not written.
				total := len(r.Summaries) + len(r.Claims) + len(r.Chunks)
				require.Less(t, puts.Load(), int64(total))
				assert.Contains(t, err.Error(), fmt.Sprintf("%d of %d items not written", total-int(puts.Load()), total))
				assert.Contains(t, err.Error(), "nothing replaced")
				assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err))
				_, err = s.Chunks(ctx, "ns", citedChunkIDs(old))
				require.Error(t, err)
				assert.Contains(t, err.Error(), "unprocessed after 3 attempts")

				faulty.Store(false)
				storetest.AssertNamespace(t, s, "ns", old)
				require.NoError(t, s.ReplaceNamespace(ctx, "ns", r), "the next ingest, fault gone")
				storetest.AssertNamespace(t, s, "ns", r)
				assertOnlyCurrentVersion(t, client, tables, map[string]int{"ns": total})
				return
			}
			require.NoError(t, err)
			chunks, err := s.Chunks(ctx, "ns", citedChunkIDs(r))
			require.NoError(t, err)
			assert.Len(t, chunks, len(r.Chunks), "every chunk read despite unprocessed keys")
			sums, err := s.Summaries(ctx, "ns")
			require.NoError(t, err)
			assert.Len(t, sums, len(r.Summaries), "every record written despite unprocessed items")
		})
	}
}

func countPuts(reqs []types.WriteRequest) int {
	n := 0
	for _, r := range reqs {
		if r.PutRequest != nil {
			n++
		}
	}
	return n
}

// partitions counts the items of every partition of table (a Scan: tests
// only).
func partitions(t *testing.T, client *dynamodb.Client, table string) map[string]int {
	t.Helper()
	out := map[string]int{}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, it := range page.Items {
			pk, ok := it["namespace"].(*types.AttributeValueMemberS)
			require.True(t, ok)
			out[pk.Value]++
		}
	}
	return out
}

// assertOnlyCurrentVersion checks that the index table holds the catalog,
// each namespace's head and one version partition of want[namespace]
// items, and nothing else: no record of a replaced or failed version.
func assertOnlyCurrentVersion(t *testing.T, client *dynamodb.Client, tables store.Tables, want map[string]int) {
	t.Helper()
	got := partitions(t, client, tables.Index)
	assert.Equal(t, 1, got["#catalog"], "the catalog")
	delete(got, "#catalog")
	for ns, n := range want {
		assert.Equal(t, 1, got[ns], "partition %s holds only the head of %s", ns, ns)
		delete(got, ns)
		var versions []string
		for part, count := range got {
			if strings.HasPrefix(part, ns+"#") {
				versions = append(versions, part)
				assert.Equal(t, n, count, "items of %s", part)
				delete(got, part)
			}
		}
		assert.Len(t, versions, 1, "one version of %s left: %v", ns, versions)
	}
	assert.Empty(t, got, "no other partition")
	for ns := range want {
		out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tables.Index), Key: map[string]types.AttributeValue{
			"namespace": &types.AttributeValueMemberS{Value: ns}, "sk": &types.AttributeValueMemberS{Value: "#head"},
		}})
		require.NoError(t, err)
		for _, attr := range []string{"pending", "retired"} {
			if set, ok := out.Item[attr].(*types.AttributeValueMemberSS); ok {
				assert.Empty(t, set.Value, "the head of %s lists no %s version", ns, attr)
			}
		}
	}
}

// TestMinidynUnprocessed uses minidyn's own partial-failure injection: the
// first sub-request of every batch stays unprocessed until cleared.
func TestMinidynUnprocessed(t *testing.T) {
	ctx := context.Background()
	client, srv := testenv.MinidynServer(t)
	tables := newTables(t, client)
	s := newStores(t, client, tables, store.WithBackoff(fastBackoff))
	r := generate(10)

	srv.EmulateUnprocessedItems(tables.Index, func(n int, _ map[string]*server.AttributeValue) bool { return n == 0 })
	err := s.ReplaceNamespace(ctx, "ns", r)
	require.Error(t, err, "the first item of every batch is refused forever")
	assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "items not written")

	srv.ClearUnprocessedItems()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", r))
	sums, err := s.Summaries(ctx, "ns")
	require.NoError(t, err)
	assert.Len(t, sums, len(r.Summaries))

	srv.EmulateFailure(server.FailureConditionInternalServerError)
	defer srv.EmulateFailure(server.FailureConditionNone)
	_, err = s.Summaries(ctx, "ns")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read the version of namespace ns")
	assert.Equal(t, globalsearch.KindInternal, globalsearch.KindOf(err), "a server error is not throttling")
}

// TestBatchWriteFailureStops: the write groups go several at a time, and
// the first failure, or the caller cancelling, stops those not yet sent;
// the error says how many items were not written.
func TestBatchWriteFailureStops(t *testing.T) {
	r := generate(400) // 1,601 items: 65 write groups
	total := len(r.Summaries) + len(r.Claims) + len(r.Chunks)
	refused := errors.New("connection reset")
	tests := []struct {
		name string
		// write answers every BatchWriteItem; cancel cancels the caller's
		// context.
		write    func(cancel func(), next store.DynamoDBAPI, ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error)
		wantErr  error
		wantKind globalsearch.Kind
	}{
		{
			name: "every call refused",
			write: func(func(), store.DynamoDBAPI, context.Context, *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				return nil, refused
			},
			wantErr: refused, wantKind: globalsearch.KindInternal,
		},
		{
			name: "cancelled by the caller during the first call",
			write: func(cancel func(), next store.DynamoDBAPI, ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				cancel()
				return next.BatchWriteItem(context.WithoutCancel(ctx), in)
			},
			wantErr: context.Canceled, wantKind: globalsearch.KindInternal,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls, puts atomic.Int64
			client := testenv.Minidyn(t)
			tables := newTables(t, client)
			fake := &fakeClient{
				next: client,
				batchWriteItem: func(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
					calls.Add(1)
					out, err := tc.write(cancel, client, ctx, in)
					if err == nil {
						puts.Add(int64(countPuts(in.RequestItems[tables.Index]) - countPuts(out.UnprocessedItems[tables.Index])))
					}
					return out, err
				},
			}
			s := newStores(t, fake, tables, store.WithBackoff(fastBackoff))

			err := s.ReplaceNamespace(ctx, "ns", r)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.wantErr)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
			assert.Positive(t, calls.Load())
			assert.LessOrEqual(t, calls.Load(), int64(8), "no group sent after the first failure, beyond those already under way")
			assert.Contains(t, err.Error(), fmt.Sprintf("batch write to %s: %d of %d items not written", tables.Index, total-int(puts.Load()), total))
			assert.Contains(t, err.Error(), "nothing replaced")
			storetest.AssertNamespace(t, newStores(t, client, tables), "ns", globalsearch.Records{})
			names, err := newStores(t, client, tables).Namespaces(context.Background())
			require.NoError(t, err)
			assert.Empty(t, names, "a namespace never written whole is not listed")
		})
	}
}

// TestTransactionBusy: a claim or a plan switch whose transaction is
// cancelled for load or for a concurrent transaction on the same items is
// throttled (a later attempt may succeed), not an internal error; one
// cancelled by its condition is not.
func TestTransactionBusy(t *testing.T) {
	ctx := context.Background()
	cancelled := func(codes ...string) error {
		var reasons []types.CancellationReason
		for _, c := range codes {
			reasons = append(reasons, types.CancellationReason{Code: aws.String(c)})
		}
		return &types.TransactionCanceledException{Message: aws.String("cancelled"), CancellationReasons: reasons}
	}
	cases := []struct {
		name     string
		err      error
		wantKind globalsearch.Kind
	}{
		{"a concurrent transaction", cancelled("None", "TransactionConflict"), globalsearch.KindThrottled},
		{"throttled", cancelled("ThrottlingError", "None"), globalsearch.KindThrottled},
		{"validation", cancelled("ValidationError", "None"), globalsearch.KindInternal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeClient{transactWrite: func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
				return nil, tc.err
			}}
			s := newRuns(t, fake, "r")
			_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q"}, "")
			require.Error(t, err)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "%v", err)
			assert.ErrorIs(t, err, tc.err)
		})
	}
}

func TestThrottled(t *testing.T) {
	ctx := context.Background()
	codes := []string{"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
	for _, code := range codes {
		t.Run(code, func(t *testing.T) {
			apiErr := &smithy.GenericAPIError{Code: code, Message: "slow down"}
			fake := &fakeClient{
				query:   func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) { return nil, apiErr },
				getItem: func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) { return nil, apiErr },
				putItem: func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) { return nil, apiErr },
				batchGetItem: func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
					return nil, apiErr
				},
				batchWriteItem: func(context.Context, *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
					return nil, apiErr
				},
				updateItem: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
					return nil, apiErr
				},
				transactWrite: func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
					return nil, apiErr
				},
			}
			s := newStores(t, fake, store.Tables{Index: "i", Runs: "r"})
			calls := map[string]func() error{
				"Summaries":     func() error { _, err := s.Summaries(ctx, "ns"); return err },
				"Chunks":        func() error { _, err := s.Chunks(ctx, "ns", []string{"a"}); return err },
				"Replace":       func() error { return s.ReplaceNamespace(ctx, "ns", generate(1)) },
				"CreateRequest": func() error { _, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q"}, ""); return err },
				"Result":        func() error { _, err := s.Result(ctx, "q"); return err },
				"MapAnswers":    func() error { _, err := s.MapAnswers(ctx, "q", "r"); return err },
				"SaveMapAnswer": func() error { return s.SaveMapAnswer(ctx, "q", "r", globalsearch.MapAnswer{}) },
				"SavePlan":      func() error { return s.SavePlan(ctx, globalsearch.Plan{Params: globalsearch.Params{QueryID: "q"}}) },
				"SaveResult":    func() error { return s.SaveResult(ctx, globalsearch.Result{QueryID: "q"}, "") },
				"SaveRunResult": func() error { return s.SaveResult(ctx, globalsearch.Result{QueryID: "q"}, "r") },
				"AddReduceCall": func() error { _, err := s.AddReduceCall(ctx, "q", "r"); return err },
				"ReduceCalls":   func() error { _, err := s.ReduceCalls(ctx, "q", "r"); return err },
			}
			for name, call := range calls {
				err := call()
				require.Error(t, err, name)
				assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err), "%s: %v", name, err)
				assert.ErrorIs(t, err, apiErr, name)
			}
		})
	}
}

func TestItemTooLarge(t *testing.T) {
	ctx := context.Background()
	huge := strings.Repeat("x", store.MaxItemBytes)
	tests := []struct {
		name string
		r    globalsearch.Records
		want string
	}{
		{"chunk", globalsearch.Records{
			Summaries: []globalsearch.Summary{{ID: "s1", Summary: "ok"}},
			Chunks:    []globalsearch.Chunk{{ID: "ok", Text: "fine"}, {ID: "big-chunk", Text: huge}},
		}, `chunk "big-chunk"`},
		{"summary", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "big-summary", Summary: huge}}}, `summary "big-summary"`},
		{"claim", globalsearch.Records{
			Summaries: []globalsearch.Summary{{ID: "s1", Summary: "ok"}},
			Claims:    []globalsearch.Claim{{ID: "big-claim", Subject: "s", Description: huge}},
		}, `claim "big-claim"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeClient{next: testenv.Minidyn(t)}
			s := newIndex(t, fake, "never-created")
			err := s.ReplaceNamespace(ctx, "ns", tc.r)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "400 KB")
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Empty(t, fake.Calls(), "refused before any request")
		})
	}

	t.Run("run items", func(t *testing.T) {
		fake := &fakeClient{next: testenv.Minidyn(t)}
		s := newRuns(t, fake, "never-created")
		err := s.SaveMapAnswer(ctx, "q", "r", globalsearch.MapAnswer{BatchIndex: 7, Answer: huge})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "map answer 7 of query q")
		plan := globalsearch.Plan{Params: globalsearch.Params{QueryID: "q"}, Batches: []globalsearch.Batch{{Index: 0, Content: huge}}}
		err = s.SavePlan(ctx, plan)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "batch 0 of query q")
		assert.Zero(t, fake.Calls()["BatchWriteItem"]+fake.Calls()["PutItem"], "nothing written")
	})
}

// TestExpired moves the clock past the TTL: DynamoDB may still return the
// items, and the store must not.
func TestExpired(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := newStores(t, client, tables, store.WithClock(clock), store.WithTTL(time.Hour))

	params := globalsearch.Params{QueryID: "q", Query: "old"}
	_, created, err := s.CreateRequest(ctx, params, "")
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, s.SavePlan(ctx, globalsearch.Plan{Params: params, Batches: []globalsearch.Batch{{Index: 0, Content: "b"}}}))
	require.NoError(t, s.SaveMapAnswer(ctx, "q", "", globalsearch.MapAnswer{BatchIndex: 0, Answer: "a"}))
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "q"}, ""))

	mu.Lock()
	now = now.Add(time.Hour + time.Second)
	mu.Unlock()

	_, err = s.Request(ctx, "q")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound)
	_, err = s.Plan(ctx, "q")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound)
	_, err = s.Batch(ctx, "q", 0)
	assert.ErrorIs(t, err, globalsearch.ErrNotFound)
	_, err = s.Result(ctx, "q")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound)
	answers, err := s.MapAnswers(ctx, "q", "")
	require.NoError(t, err)
	assert.Empty(t, answers)

	// An expired request does not block a new one under the same id.
	fresh := globalsearch.Params{QueryID: "q", Query: "new"}
	got, created, err := s.CreateRequest(ctx, fresh, "")
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, fresh, got)
}

// TestExpiresAtWritten checks the TTL attribute DynamoDB deletes by.
func TestExpiresAtWritten(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStores(t, client, tables, store.WithClock(func() time.Time { return now }))
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "q", Status: globalsearch.StatusCompleted}, ""))

	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(tables.Runs),
		Key: map[string]types.AttributeValue{
			"queryId": &types.AttributeValueMemberS{Value: "q"},
			"sk":      &types.AttributeValueMemberS{Value: "result"},
		},
	})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: fmt.Sprint(now.Add(globalsearch.DefaultRunsTTL).Unix())}, out.Item[store.TTLAttribute])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "completed"}, out.Item["status"])
}

// TestPagination writes more than 1 MB and checks that reads follow
// LastEvaluatedKey: on moto, which pages at 1 MB like DynamoDB.
func TestPaginationMoto(t *testing.T) {
	ctx := context.Background()
	client := testenv.DynamoDBClient(t, testenv.Moto(t, testenv.MotoOptions{}))
	tables := newTables(t, client)
	fake := &fakeClient{next: client}
	s := newStores(t, fake, tables)
	var r globalsearch.Records
	for i := range 300 {
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: fmt.Sprintf("s%04d", i), Summary: strings.Repeat("z", 8000)})
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", r))
	fake.Reset()
	sums, err := s.Summaries(ctx, "ns")
	require.NoError(t, err)
	assert.Len(t, sums, 300)
	assert.GreaterOrEqual(t, fake.Calls()["Query"], 3, "2.4 MB reads in at least three 1 MB pages")
}

func TestCreateTablesTwice(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	s := newStores(t, client, tables)
	r := generate(3)
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", r))
	p := globalsearch.Params{QueryID: "q1", Namespace: "ns", Query: "what changed?"}
	_, created, err := s.CreateRequest(ctx, p, "")
	require.NoError(t, err)
	require.True(t, created)

	require.NoError(t, store.CreateTables(ctx, client, tables), "existing tables are left as they are")
	sums, err := s.Summaries(ctx, "ns")
	require.NoError(t, err)
	assert.Len(t, sums, len(r.Summaries), "the index table keeps its items")
	stored, err := s.Request(ctx, "q1")
	require.NoError(t, err, "the runs table keeps its items")
	assert.Equal(t, p, stored)
}

// TestPlanRefusesBatchOfAnotherRun: two prepares of one query id at once
// can interleave their batch items; a plan never reads another run's batch
// as its own.
func TestPlanRefusesBatchOfAnotherRun(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	s := newStores(t, client, tables)
	plan := globalsearch.Plan{RunID: "r1", Params: globalsearch.Params{QueryID: "q"}, Batches: []globalsearch.Batch{
		{RunID: "r1", Index: 0, Content: "a"}, {RunID: "r1", Index: 1, Content: "b"},
	}}
	require.NoError(t, s.SavePlan(ctx, plan))
	_, err := s.Plan(ctx, "q")
	require.NoError(t, err)

	item, err := attributevalue.MarshalMap(map[string]any{
		"queryId": "q", "sk": "batch#r1#000001",
		"batch": map[string]any{"runId": "r2", "index": 1, "content": "other plan"},
	})
	require.NoError(t, err)
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tables.Runs), Item: item})
	require.NoError(t, err)
	_, err = s.Plan(ctx, "q")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "batch 1 of 2 is missing")
}

// TestNamespaceListFailure: when the records are written but the namespace
// list cannot be updated, ingest says so (the records are searchable, the
// list is stale) instead of reporting success; listing is one Query.
func TestNamespaceListFailure(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	fake := &fakeClient{next: client, updateItem: func(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		if pk, _ := in.Key["namespace"].(*types.AttributeValueMemberS); pk != nil && pk.Value == "#catalog" {
			return nil, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not allowed"}
		}
		return client.UpdateItem(ctx, in)
	}}
	s := newStores(t, fake, tables)
	r := generate(3)
	err := s.ReplaceNamespace(ctx, "ns", r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "namespace ns: records replaced, but the namespace list was not updated")
	sums, err := s.Summaries(ctx, "ns")
	require.NoError(t, err)
	assert.Len(t, sums, len(r.Summaries), "the records were written")

	fake.Reset()
	names, err := s.Namespaces(ctx)
	require.NoError(t, err)
	assert.Empty(t, names)
	assert.Equal(t, map[string]int{"Query": 1}, fake.Calls(), "one Query: what prepare's policy allows")
}
