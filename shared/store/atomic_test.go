package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// writeFault fails write call number failAt (from 1) of the calls that
// change the table: refused (never applied), or applied with its answer
// lost, as a timeout after DynamoDB acted would be.
type writeFault struct {
	store.DynamoDBAPI
	failAt int64
	lost   bool
	writes atomic.Int64
}

var errInjected = errors.New("injected write failure")

func (f *writeFault) fail(apply func() error) error {
	if f.writes.Add(1) != f.failAt {
		return apply()
	}
	if f.lost {
		if err := apply(); err != nil {
			return err
		}
	}
	return fmt.Errorf("write call %d: %w", f.failAt, errInjected)
}

func (f *writeFault) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	var out *dynamodb.BatchWriteItemOutput
	err := f.fail(func() (err error) { out, err = f.DynamoDBAPI.BatchWriteItem(ctx, in, o...); return err })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (f *writeFault) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	var out *dynamodb.UpdateItemOutput
	err := f.fail(func() (err error) { out, err = f.DynamoDBAPI.UpdateItem(ctx, in, o...); return err })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (f *writeFault) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	var out *dynamodb.TransactWriteItemsOutput
	err := f.fail(func() (err error) { out, err = f.DynamoDBAPI.TransactWriteItems(ctx, in, o...); return err })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (f *writeFault) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	var out *dynamodb.PutItemOutput
	err := f.fail(func() (err error) { out, err = f.DynamoDBAPI.PutItem(ctx, in, o...); return err })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func sampleIndex(t *testing.T) indexfile.File {
	t.Helper()
	f, err := indexfile.Load(filepath.Join("..", "..", "testdata", "sample-index.json"))
	require.NoError(t, err)
	return f
}

// planJSON is the plan of a fixed request (shuffle seed 7) as bytes, less
// what differs between two plans of one namespace (run id, time).
func planJSON(t *testing.T, idx globalsearch.Index, namespace string) []byte {
	t.Helper()
	seed := int64(7)
	p, err := globalsearch.Request{QueryID: "q-fixed", Namespace: namespace, Query: "What are the main themes?", ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	plan, err := (&globalsearch.Engine{Index: idx}).Plan(context.Background(), p)
	require.NoError(t, err)
	plan.RunID, plan.CreatedAt = "", time.Time{}
	data, err := json.Marshal(plan)
	require.NoError(t, err)
	return data
}

func itemCount(r globalsearch.Records) int { return len(r.Summaries) + len(r.Claims) + len(r.Chunks) }

// TestIngestFailsAtEveryWrite injects a failure at every write call of an
// ingest in turn (call 1, 2, ... until the ingest makes no more), refused
// or applied with its answer lost: an ingest that says nothing was
// replaced leaves the old namespace reading exactly as before, its plan
// byte-identical; one that says it replaced (or succeeds) reads exactly
// the new records; and the next good ingest leaves one version and no item
// of the failed one (docs/contract.md#namespace-versions).
func TestIngestFailsAtEveryWrite(t *testing.T) {
	backends := freshBackends()
	ctx := context.Background()
	old := sampleIndex(t)
	ns := old.Namespace
	next := generate(60) // 241 items: 10 write groups; the old 196 take 8 to delete
	for _, backend := range backends {
		t.Run(backend.name, func(t *testing.T) {
			client := backend.client(t)
			for _, lost := range []bool{false, true} {
				t.Run(fmt.Sprintf("applied=%v", lost), func(t *testing.T) {
					var before, after int
					for k := int64(1); ; k++ {
						tables := newTables(t, client)
						clean := newStores(t, client, tables)
						require.NoError(t, clean.ReplaceNamespace(ctx, ns, old.Records))
						wantPlan := planJSON(t, clean, ns)

						fault := &writeFault{DynamoDBAPI: client, failAt: k, lost: lost}
						err := newStores(t, fault, tables, store.WithBackoff(fastBackoff)).ReplaceNamespace(ctx, ns, next)
						if fault.writes.Load() < k {
							require.NoError(t, err, "no call %d to fail", k)
							break
						}
						switch {
						case err != nil && strings.Contains(err.Error(), "nothing replaced"):
							before++
							assert.ErrorIs(t, err, errInjected, "call %d", k)
							storetest.AssertNamespace(t, clean, ns, old.Records)
							assert.Equal(t, string(wantPlan), string(planJSON(t, clean, ns)), "call %d: the old plan, byte for byte", k)
						default:
							after++
							if err != nil {
								assert.Contains(t, err.Error(), "records replaced, but", "call %d", k)
							}
							storetest.AssertNamespace(t, clean, ns, next)
						}
						require.NoError(t, clean.ReplaceNamespace(ctx, ns, next), "call %d: the next ingest", k)
						storetest.AssertNamespace(t, clean, ns, next)
						assertOnlyCurrentVersion(t, client, tables, map[string]int{ns: itemCount(next)})
						names, err := clean.Namespaces(ctx)
						require.NoError(t, err)
						assert.Equal(t, []string{ns}, names)
					}
					t.Logf("%d write calls failed in turn: %d before the switch, %d after", before+after, before, after)
					assert.GreaterOrEqual(t, before, 11, "the pending mark and every record batch")
					assert.GreaterOrEqual(t, after, 10, "the catalog and every deletion")
				})
			}
		})
	}
}

// TestLegacyNamespace: a namespace written before versions (records in
// partition <namespace>, no head) still reads, and the first ingest moves
// it to a version and deletes the legacy records, keeping the head.
func TestLegacyNamespace(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	legacy := generate(30)
	var puts []types.WriteRequest
	add := func(v map[string]any) {
		it := map[string]types.AttributeValue{}
		for k, x := range v {
			switch x := x.(type) {
			case string:
				it[k] = &types.AttributeValueMemberS{Value: x}
			case int:
				it[k] = &types.AttributeValueMemberN{Value: fmt.Sprint(x)}
			case []string:
				l := &types.AttributeValueMemberL{}
				for _, s := range x {
					l.Value = append(l.Value, &types.AttributeValueMemberS{Value: s})
				}
				it[k] = l
			}
		}
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	for _, s := range legacy.Summaries {
		v := map[string]any{"namespace": "old", "sk": "summary#" + s.ID, "id": s.ID, "level": s.Level, "summary": s.Summary}
		if s.ParentCommunityID != "" {
			v["parentCommunityId"] = s.ParentCommunityID
		}
		add(v)
	}
	for _, c := range legacy.Claims {
		add(map[string]any{"namespace": "old", "sk": "claim#" + c.ID, "id": c.ID, "communityId": c.CommunityID, "subject": c.Subject, "description": c.Description, "sourceChunkIds": c.SourceChunkIDs})
	}
	for _, c := range legacy.Chunks {
		add(map[string]any{"namespace": "old", "sk": "chunk#" + c.ID, "id": c.ID, "text": c.Text})
	}
	for i := 0; i < len(puts); i += 25 {
		_, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tables.Index: puts[i:min(i+25, len(puts))]}})
		require.NoError(t, err)
	}
	s := newStores(t, client, tables)
	storetest.AssertNamespace(t, s, "old", legacy)

	next := generate(5)
	require.NoError(t, s.ReplaceNamespace(ctx, "old", next))
	storetest.AssertNamespace(t, s, "old", next)
	assertOnlyCurrentVersion(t, client, tables, map[string]int{"old": itemCount(next)})

	require.NoError(t, s.DeleteNamespace(ctx, "old"))
	storetest.AssertNamespace(t, s, "old", globalsearch.Records{})
	got := partitions(t, client, tables.Index)
	assert.Equal(t, map[string]int{"#catalog": 1, "old": 1}, got, "only the catalog and the head are left")
}

// searchGate holds a search's first record read until released, and lets
// an ingest's first deletion through, then holds the rest: the search
// reads a version half deleted.
type searchGate struct {
	store.DynamoDBAPI
	readHeld chan struct{} // closed by the test to let the record reads go
}

func (g *searchGate) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if !isHeadQuery(in) {
		<-g.readHeld
	}
	return g.DynamoDBAPI.Query(ctx, in, o...)
}

type deleteGate struct {
	store.DynamoDBAPI
	deletes     atomic.Int64
	halfDeleted chan struct{}
	resume      chan struct{}
}

func (g *deleteGate) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for _, reqs := range in.RequestItems {
		if len(reqs) > 0 && reqs[0].DeleteRequest != nil {
			if g.deletes.Add(1) > 1 {
				<-g.resume
			} else {
				defer close(g.halfDeleted)
			}
		}
	}
	return g.DynamoDBAPI.BatchWriteItem(ctx, in, o...)
}

// TestSearchAcrossSwitch: a search that opened the old version before an
// ingest switched reads either the whole old version or, seeing the
// version moved, the whole new one: its plan is the old plan or the new
// one, never a mix, even when it read the old version half deleted.
func TestSearchAcrossSwitch(t *testing.T) {
	ctx := context.Background()
	old := sampleIndex(t)
	ns := old.Namespace
	next := generate(60)
	next.Summaries[0].Summary = "the new corpus"
	tests := []struct {
		name string
		// halfway holds the ingest after its first deletion of the old
		// version while the search reads.
		halfway bool
	}{
		{"replaced before the reads", false},
		{"read while the old version is half deleted", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := testenv.Minidyn(t)
			tables := newTables(t, client)
			clean := newStores(t, client, tables)
			require.NoError(t, clean.ReplaceNamespace(ctx, ns, next))
			wantNext := planJSON(t, clean, ns)
			require.NoError(t, clean.ReplaceNamespace(ctx, ns, old.Records))
			wantOld := planJSON(t, clean, ns)
			require.NotEqual(t, string(wantOld), string(wantNext))

			gate := &searchGate{DynamoDBAPI: client, readHeld: make(chan struct{})}
			searching := newStores(t, gate, tables)
			seed := int64(7)
			p, err := globalsearch.Request{QueryID: "q-fixed", Namespace: ns, Query: "What are the main themes?", ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
			require.NoError(t, err)
			type planned struct {
				plan globalsearch.Plan
				err  error
			}
			done := make(chan planned, 1)
			go func() {
				plan, err := (&globalsearch.Engine{Index: searching}).Plan(ctx, p)
				done <- planned{plan, err}
			}()

			ingest := &deleteGate{DynamoDBAPI: client, halfDeleted: make(chan struct{}), resume: make(chan struct{})}
			ingested := make(chan error, 1)
			go func() { ingested <- newStores(t, ingest, tables).ReplaceNamespace(ctx, ns, next) }()
			if tc.halfway {
				<-ingest.halfDeleted
			} else {
				close(ingest.resume)
				require.NoError(t, <-ingested)
			}
			close(gate.readHeld)
			got := <-done
			require.NoError(t, got.err)
			got.plan.RunID, got.plan.CreatedAt = "", time.Time{}
			data, err := json.Marshal(got.plan)
			require.NoError(t, err)
			assert.Equal(t, string(wantNext), string(data), "the search read the new version whole")
			if tc.halfway {
				close(ingest.resume)
				require.NoError(t, <-ingested)
			}
			assertOnlyCurrentVersion(t, client, tables, map[string]int{ns: itemCount(next)})
		})
	}
}

// TestConcurrentIngests: of two ingests of one namespace whose writes
// overlap, the one that switches second fails and the namespace reads
// exactly one of them, whole.
func TestConcurrentIngests(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	a, b := generate(20), generate(7)
	s := newStores(t, client, tables)
	first := &pauseAfterPending{DynamoDBAPI: client, pending: make(chan struct{}), resume: make(chan struct{})}
	errA := make(chan error, 1)
	go func() { errA <- newStores(t, first, tables).ReplaceNamespace(ctx, "ns", a) }()
	<-first.pending
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", b), "the second ingest switches first")
	close(first.resume)
	err := <-errA
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nothing replaced")
	assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err), "run it again")
	storetest.AssertNamespace(t, s, "ns", b)
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", a))
	storetest.AssertNamespace(t, s, "ns", a)
	assertOnlyCurrentVersion(t, client, tables, map[string]int{"ns": itemCount(a)})
}

// pauseAfterPending holds an ingest once it has marked its version
// pending.
type pauseAfterPending struct {
	store.DynamoDBAPI
	once            sync.Once
	pending, resume chan struct{}
}

func (p *pauseAfterPending) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := p.DynamoDBAPI.UpdateItem(ctx, in, o...)
	p.once.Do(func() {
		close(p.pending)
		<-p.resume
	})
	return out, err
}
