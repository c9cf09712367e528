package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// fakeS3 wraps a real client; a non-nil function field replaces that call.
// It records every call.
type fakeS3 struct {
	next      store.S3API
	putObject func(context.Context, *s3.PutObjectInput) (*s3.PutObjectOutput, error)
	getObject func(context.Context, *s3.GetObjectInput) (*s3.GetObjectOutput, error)

	mu   sync.Mutex
	puts []string // keys
	gets []string // key and range
}

func (f *fakeS3) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	f.mu.Lock()
	f.puts = append(f.puts, aws.ToString(in.Key))
	f.mu.Unlock()
	if f.putObject != nil {
		return f.putObject(ctx, in)
	}
	return f.next.PutObject(ctx, in, o...)
}

func (f *fakeS3) GetObject(ctx context.Context, in *s3.GetObjectInput, o ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	f.mu.Lock()
	f.gets = append(f.gets, aws.ToString(in.Key)+" "+aws.ToString(in.Range))
	f.mu.Unlock()
	if f.getObject != nil {
		return f.getObject(ctx, in)
	}
	return f.next.GetObject(ctx, in, o...)
}

// payloadStores are the stores of one test: minidyn tables, a moto bucket.
type payloadStores struct {
	stores
	dynamo *fakeClient
	s3     *fakeS3
	table  string
}

func newPayloadStores(t *testing.T, s3c *s3.Client) payloadStores {
	t.Helper()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	fd := &fakeClient{next: client}
	fs := &fakeS3{next: s3c}
	st := newStores(t, fd, tables, store.WithQueryLimit(25))
	p, err := store.NewPayloads(fs, testenv.NewBucket(t, s3c))
	require.NoError(t, err)
	st.Runs = st.Runs.WithPayloads(p)
	return payloadStores{stores: st, dynamo: fd, s3: fs, table: tables.Runs}
}

// The conformance suite with the batch texts in a bucket: minidyn for the
// tables, moto for S3.
func TestConformanceMinidynS3(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	storetest.Run(t, func(t *testing.T) storetest.Store { return newPayloadStores(t, s3c).stores })
}

func TestNewPayloadsNeedsABucket(t *testing.T) {
	_, err := store.NewPayloads(&fakeS3{}, "")
	assert.EqualError(t, err, "the payload bucket has no name")
}

// plan3 is a plan of three batches of a run.
func plan3(queryID, runID string) globalsearch.Plan {
	p := globalsearch.Plan{RunID: runID, Params: globalsearch.Params{QueryID: queryID, Query: "q"}, Batches: []globalsearch.Batch{}}
	for i, text := range []string{"first text", "", "third, ünïcode text"} {
		p.Batches = append(p.Batches, globalsearch.Batch{RunID: runID, Index: i, CommunityIDs: []string{"c"}, Content: text})
	}
	return p
}

// The layout (docs/contract.md#payloads-bucket): a save is one PutObject
// under the run's prefix, written before any DynamoDB write; the batch
// items hold no text; a batch read is one ranged GetObject, a plan read
// one whole GetObject.
func TestPayloadLayout(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	ctx := context.Background()
	s := newPayloadStores(t, s3c)
	var order []string
	var mu sync.Mutex
	s.s3.putObject = func(ctx context.Context, in *s3.PutObjectInput) (*s3.PutObjectOutput, error) {
		mu.Lock()
		order = append(order, "PutObject")
		mu.Unlock()
		return s.s3.next.PutObject(ctx, in)
	}
	s.dynamo.batchWriteItem = func(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		mu.Lock()
		order = append(order, "BatchWriteItem")
		mu.Unlock()
		return s.dynamo.next.BatchWriteItem(ctx, in)
	}
	want := plan3("q-layout", "run-1")
	require.NoError(t, s.SavePlan(ctx, want))
	require.Len(t, s.s3.puts, 1, "one object per save")
	assert.True(t, strings.HasPrefix(s.s3.puts[0], "runs/q-layout/run-1/texts-"), s.s3.puts[0])
	assert.Equal(t, []string{"PutObject", "BatchWriteItem"}, order, "the texts are written before any item names them")

	out, err := s.dynamo.next.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: runKey("q-layout", "batch#run-1#000002")})
	require.NoError(t, err)
	var raw struct {
		Batch globalsearch.Batch `dynamodbav:"batch"`
		Text  map[string]any     `dynamodbav:"text"`
	}
	require.NoError(t, attributevalue.UnmarshalMap(out.Item, &raw))
	assert.Empty(t, raw.Batch.Content, "the item keeps no text")
	assert.Equal(t, map[string]any{"key": s.s3.puts[0], "offset": float64(len("first text")), "length": float64(len("third, ünïcode text"))}, raw.Text)

	b, err := s.Batch(ctx, "q-layout", 2)
	require.NoError(t, err)
	assert.Equal(t, want.Batches[2], b)
	b, err = s.Batch(ctx, "q-layout", 1)
	require.NoError(t, err)
	assert.Equal(t, want.Batches[1], b, "an empty text needs no read")
	got, err := s.Plan(ctx, "q-layout")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	meta, err := s.PlanMeta(ctx, "q-layout")
	require.NoError(t, err)
	assert.Empty(t, meta.Batches[0].Content)
	third := fmt.Sprintf(" bytes=%d-%d", len("first text"), len("first text")+len("third, ünïcode text")-1)
	assert.Equal(t, []string{s.s3.puts[0] + third, s.s3.puts[0] + " "}, s.s3.gets,
		"a ranged read per batch, one whole read per plan, none for the metadata")
}

func runKey(queryID, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"queryId": &types.AttributeValueMemberS{Value: queryID}, "sk": &types.AttributeValueMemberS{Value: sk}}
}

// A save whose texts cannot be written writes nothing to the table: the
// previous plan stays the current one, whole.
func TestPayloadWriteFailureSavesNothing(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	ctx := context.Background()
	tests := []struct {
		name     string
		err      error
		wantKind globalsearch.Kind
	}{
		{"refused", errors.New("connection reset"), globalsearch.KindInternal},
		{"throttled", &smithy.GenericAPIError{Code: "SlowDown", Message: "Please reduce your request rate."}, globalsearch.KindThrottled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newPayloadStores(t, s3c)
			first := plan3("q-fail", "run-1")
			require.NoError(t, s.SavePlan(ctx, first))
			s.s3.putObject = func(context.Context, *s3.PutObjectInput) (*s3.PutObjectOutput, error) { return nil, tc.err }
			s.dynamo.Reset()
			second := plan3("q-fail", "run-2")
			second.Batches[0].Content = "other"
			err := s.SavePlan(ctx, second)
			require.Error(t, err)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "%v", err)
			calls := s.dynamo.Calls()
			assert.Zero(t, calls["BatchWriteItem"]+calls["TransactWriteItems"]+calls["PutItem"]+calls["UpdateItem"], "no table write: %v", calls)
			got, err := s.Plan(ctx, "q-fail")
			require.NoError(t, err)
			assert.Equal(t, first, got, "the previous plan is whole")
		})
	}
}

// Reads refuse a batch item whose text is not its run's or not where it
// says, and a store without the bucket refuses a batch that is in it.
func TestPayloadReadFailures(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	ctx := context.Background()
	tests := []struct {
		name    string
		set     map[string]types.AttributeValue // attributes of batch 0's item replaced
		noS3    bool
		getErr  error
		short   bool
		wantErr string
		kind    globalsearch.Kind
	}{
		{name: "text of another run", set: map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: "runs/q-read/run-old/texts-0"}},
			wantErr: "which is not its run's", kind: globalsearch.KindInternal},
		{name: "text of another query id", set: map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: "runs/q-other/run-1/texts-0"}},
			wantErr: "which is not its run's", kind: globalsearch.KindInternal},
		{name: "no bucket", noS3: true, wantErr: "payload bucket, which this store has no access to", kind: globalsearch.KindInternal},
		{name: "throttled", getErr: &smithy.GenericAPIError{Code: "SlowDown"}, wantErr: "throttled by S3", kind: globalsearch.KindThrottled},
		{name: "object shorter than named", short: true, wantErr: "not the 10 the batch item names", kind: globalsearch.KindInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newPayloadStores(t, s3c)
			require.NoError(t, s.SavePlan(ctx, plan3("q-read", "run-1")))
			if tc.set != nil {
				_, err := s.dynamo.next.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: &s.table, Key: runKey("q-read", "batch#run-1#000000"),
					UpdateExpression:         aws.String("SET #t.#k = :k"),
					ExpressionAttributeNames: map[string]string{"#t": "text", "#k": "key"}, ExpressionAttributeValues: tc.set,
				})
				require.NoError(t, err)
			}
			s.s3.getObject = func(ctx context.Context, in *s3.GetObjectInput) (*s3.GetObjectOutput, error) {
				switch {
				case tc.getErr != nil:
					return nil, tc.getErr
				case tc.short:
					return &s3.GetObjectOutput{Body: io.NopCloser(bytes.NewReader([]byte("first")))}, nil
				}
				return s.s3.next.GetObject(ctx, in)
			}
			runs := s.Runs
			if tc.noS3 {
				runs = newRuns(t, s.dynamo, s.table)
			}
			_, err := runs.Batch(ctx, "q-read", 0)
			require.Error(t, err)
			assert.ErrorContains(t, err, tc.wantErr)
			assert.Equal(t, tc.kind, globalsearch.KindOf(err), "%v", err)
			if !tc.short {
				_, err = runs.Plan(ctx, "q-read")
				assert.ErrorContains(t, err, tc.wantErr, "the whole plan is refused too")
			}
		})
	}
}

// PutMapItems writes the batch indexes a Distributed Map's ItemReader
// reads: a JSON array under the run's prefix (docs/contract.md#payloads-bucket).
func TestPutMapItems(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	ctx := context.Background()
	p, err := store.NewPayloads(s3c, testenv.NewBucket(t, s3c))
	require.NoError(t, err)
	tests := []struct {
		name    string
		queryID string
		runID   string
		batches int
		wantKey string
		want    []int
		wantErr string
	}{
		{name: "three batches", queryID: "q-items", runID: "run-1", batches: 3, wantKey: "runs/q-items/run-1/map-items-3.json", want: []int{0, 1, 2}},
		{name: "no batch", queryID: "q-items", runID: "run-2", batches: 0, wantKey: "runs/q-items/run-2/map-items-0.json", want: []int{}},
		{name: "no query id", runID: "run-1", batches: 3, wantErr: "queryId must not be empty"},
		{name: "a run id that would leave its prefix", queryID: "q-items", runID: "run/../x", batches: 3, wantErr: `run "run/../x"`},
		{name: "past the runs table's keys", queryID: "q-items", runID: "run-1", batches: 1_000_001, wantErr: "with 1000001 batches"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, err := p.PutMapItems(ctx, tc.queryID, tc.runID, tc.batches)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantKey, key)
			out, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.Bucket()), Key: aws.String(key)})
			require.NoError(t, err)
			defer out.Body.Close()
			var got []int
			require.NoError(t, json.NewDecoder(out.Body).Decode(&got))
			assert.Equal(t, tc.want, got)
		})
	}
}
