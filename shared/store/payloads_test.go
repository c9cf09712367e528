package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
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
	"github.com/graphrag-global/graphrag-global/shared/workflow"
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
	bucket string
}

func newPayloadStores(t *testing.T, s3c *s3.Client) payloadStores {
	t.Helper()
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	fd := &fakeClient{next: client}
	fs := &fakeS3{next: s3c}
	st := newStores(t, fd, tables, store.WithQueryLimit(25))
	bucket := testenv.NewBucket(t, s3c)
	p, err := store.NewPayloads(fs, bucket)
	require.NoError(t, err)
	st.Runs = st.Runs.WithPayloads(p)
	return payloadStores{stores: st, dynamo: fd, s3: fs, table: tables.Runs, bucket: bucket}
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

// The layout (docs/contract.md#payloads-bucket): a save is two PutObjects
// under the run's prefix, the texts and the batches, written before the
// plan item names them, and no batch item; a batch read is three ranged
// GetObjects (its offsets, its record, its text), a plan read both objects
// whole, the metadata the batches object only.
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
	s.dynamo.transactWrite = func(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		mu.Lock()
		order = append(order, "TransactWriteItems")
		mu.Unlock()
		return s.dynamo.next.TransactWriteItems(ctx, in)
	}
	want := plan3("q-layout", "run-1")
	require.NoError(t, s.SavePlan(ctx, want))
	require.Len(t, s.s3.puts, 2, "two objects per save")
	slices.Sort(s.s3.puts)
	batches, texts := s.s3.puts[0], s.s3.puts[1]
	assert.True(t, strings.HasPrefix(batches, "runs/q-layout/run-1/batches-"), batches)
	assert.True(t, strings.HasPrefix(texts, "runs/q-layout/run-1/texts-"), texts)
	assert.Equal(t, []string{"PutObject", "PutObject", "TransactWriteItems"}, order, "the objects are written before the plan names them")
	assert.Zero(t, s.dynamo.Calls()["BatchWriteItem"], "no batch item")

	out, err := s.dynamo.next.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: runKey("q-layout", "plan")})
	require.NoError(t, err)
	var raw struct {
		Plan map[string]any `dynamodbav:"plan"`
	}
	require.NoError(t, attributevalue.UnmarshalMap(out.Item, &raw))
	assert.Equal(t, batches, raw.Plan["batchesKey"])
	assert.Equal(t, float64(3), raw.Plan["batchCount"])

	body := s.object(t, batches)
	records := decodeBatches(t, body)
	require.Len(t, records, 3)
	assert.Equal(t, map[string]any{"key": texts, "offset": float64(len("first text")), "length": float64(len("third, ünïcode text"))}, records[2]["text"])
	assert.Equal(t, map[string]any{"runId": "run-1", "index": float64(2), "communityIds": []any{"c"}, "estimatedTokens": float64(0), "content": ""}, records[2]["batch"], "the record keeps no text")
	assert.Equal(t, "first text"+"third, ünïcode text", string(s.object(t, texts)))

	s.s3.gets = nil
	b, err := s.Batch(ctx, "q-layout", 2)
	require.NoError(t, err)
	assert.Equal(t, want.Batches[2], b)
	entry := binary.BigEndian.Uint64(body[16:])
	end := binary.BigEndian.Uint64(body[24:])
	third := fmt.Sprintf(" bytes=%d-%d", len("first text"), len("first text")+len("third, ünïcode text")-1)
	assert.Equal(t, []string{batches + " bytes=16-31", batches + fmt.Sprintf(" bytes=%d-%d", entry, end-1), texts + third}, s.s3.gets,
		"a batch read is its offsets, its record and its text")
	s.s3.gets = nil
	b, err = s.Batch(ctx, "q-layout", 1)
	require.NoError(t, err)
	assert.Equal(t, want.Batches[1], b)
	assert.Len(t, s.s3.gets, 2, "an empty text needs no read")
	s.s3.gets = nil
	got, err := s.Plan(ctx, "q-layout")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.ElementsMatch(t, []string{batches + " ", texts + " "}, s.s3.gets, "a plan read is both objects whole")
	s.s3.gets = nil
	meta, err := s.PlanMeta(ctx, "q-layout")
	require.NoError(t, err)
	assert.Empty(t, meta.Batches[2].Content)
	assert.Equal(t, want.Batches[2].CommunityIDs, meta.Batches[2].CommunityIDs)
	assert.Equal(t, []string{batches + " "}, s.s3.gets, "the metadata reads no text")
}

// object reads an object of the stores' bucket whole.
func (s payloadStores) object(t *testing.T, key string) []byte {
	t.Helper()
	out, err := s.s3.next.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &s.bucket, Key: &key})
	require.NoError(t, err)
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	return body
}

// decodeBatches decodes the records of a batches object by its offsets.
func decodeBatches(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	require.GreaterOrEqual(t, len(body), 8)
	n := int(binary.BigEndian.Uint64(body)/8) - 1
	records := make([]map[string]any, n)
	for i := range n {
		from, to := binary.BigEndian.Uint64(body[8*i:]), binary.BigEndian.Uint64(body[8*i+8:])
		require.NoError(t, json.Unmarshal(body[from:to], &records[i]), "record %d", i)
	}
	return records
}

// encodeBatches lays records out as a batches object.
func encodeBatches(t *testing.T, records []map[string]any) []byte {
	t.Helper()
	var table, tail []byte
	at := uint64(8 * (len(records) + 1))
	for _, r := range records {
		raw, err := json.Marshal(r)
		require.NoError(t, err)
		table = binary.BigEndian.AppendUint64(table, at)
		tail, at = append(tail, raw...), at+uint64(len(raw))
	}
	return append(binary.BigEndian.AppendUint64(table, at), tail...)
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

// Reads refuse batches that are not their run's or not where they say,
// and a store without the bucket refuses a plan whose batches are in it.
func TestPayloadReadFailures(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	ctx := context.Background()
	setText := func(key string) func([]map[string]any) {
		return func(r []map[string]any) { r[0]["text"].(map[string]any)["key"] = key }
	}
	tests := []struct {
		name       string
		batchesKey string                 // replaces the plan item's
		records    func([]map[string]any) // rewrites the batches object
		body       func([]byte) []byte    // replaces the batches object
		noS3       bool
		getErr     error
		short      bool
		wantErr    string
		kind       globalsearch.Kind
	}{
		{name: "batches of another run", batchesKey: "runs/q-read/run-old/batches-0", wantErr: "which are not its run's", kind: globalsearch.KindInternal},
		{name: "batches of another query id", batchesKey: "runs/q-other/run-1/batches-0", wantErr: "which are not its run's", kind: globalsearch.KindInternal},
		{name: "text of another run", records: setText("runs/q-read/run-old/texts-0"), wantErr: "which is not its run's", kind: globalsearch.KindInternal},
		{name: "text of another query id", records: setText("runs/q-other/run-1/texts-0"), wantErr: "which is not its run's", kind: globalsearch.KindInternal},
		{name: "a record of another batch", records: func(r []map[string]any) { r[0], r[1] = r[1], r[0] }, wantErr: "record 0 of", kind: globalsearch.KindInternal},
		{name: "a record of another run", records: func(r []map[string]any) { r[0]["batch"].(map[string]any)["runId"] = "run-old" }, wantErr: `of run "run-old", not batch 0 of run run-1`, kind: globalsearch.KindInternal},
		{name: "a record that is not JSON", body: func(b []byte) []byte { b[binary.BigEndian.Uint64(b)] = '!'; return b }, wantErr: "decode batch", kind: globalsearch.KindInternal},
		{name: "offsets out of order", body: func(b []byte) []byte { copy(b[0:8], b[8:16]); copy(b[8:16], make([]byte, 8)); return b }, wantErr: "outside", kind: globalsearch.KindInternal},
		{name: "no bucket", noS3: true, wantErr: "payload bucket, which this store has no access to", kind: globalsearch.KindInternal},
		{name: "throttled", getErr: &smithy.GenericAPIError{Code: "SlowDown"}, wantErr: "throttled by S3", kind: globalsearch.KindThrottled},
		{name: "object shorter than asked", short: true, wantErr: "not the 16 asked for", kind: globalsearch.KindInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newPayloadStores(t, s3c)
			require.NoError(t, s.SavePlan(ctx, plan3("q-read", "run-1")))
			if tc.batchesKey != "" {
				_, err := s.dynamo.next.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: &s.table, Key: runKey("q-read", "plan"),
					UpdateExpression:          aws.String("SET #p.#k = :k"),
					ExpressionAttributeNames:  map[string]string{"#p": "plan", "#k": "batchesKey"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: tc.batchesKey}},
				})
				require.NoError(t, err)
			}
			if tc.records != nil || tc.body != nil {
				key := s.batchesKey(t)
				body := s.object(t, key)
				if tc.records != nil {
					records := decodeBatches(t, body)
					tc.records(records)
					body = encodeBatches(t, records)
				} else {
					body = tc.body(body)
				}
				// Under a key that names its digest and with no ETag in
				// the plan item, as a save of a buggy writer would leave
				// it: these are the checks beside the digest's.
				sum := sha256.Sum256(body)
				key = key[:strings.LastIndex(key, "-")+1] + hex.EncodeToString(sum[:16])
				_, err := s.s3.next.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &key, Body: bytes.NewReader(body)})
				require.NoError(t, err)
				_, err = s.dynamo.next.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: &s.table, Key: runKey("q-read", "plan"),
					UpdateExpression:          aws.String("SET #p.#k = :k REMOVE #p.#e"),
					ExpressionAttributeNames:  map[string]string{"#p": "plan", "#k": "batchesKey", "#e": "batchesETag"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: key}},
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

// An object overwritten with other bytes of the same length is never
// served: a whole read checks the digest its key names, a ranged read asks
// S3 for the object the save wrote (its ETag), and either refusal is a
// corrupt payload (docs/contract.md#payloads-bucket), which the Lambda
// boundary names CorruptPayloadError and no Retry repeats.
func TestTamperedPayloadIsRefused(t *testing.T) {
	s3c := testenv.S3Client(t, testenv.Moto(t, testenv.MotoOptions{}))
	ctx := context.Background()
	// flip replaces every byte of text in body with one of the same length.
	flip := func(body []byte, text, with string) []byte {
		require.Len(t, with, len(text))
		at := bytes.Index(body, []byte(text))
		require.GreaterOrEqual(t, at, 0, "%q in the object", text)
		return slices.Concat(body[:at], []byte(with), body[at+len(text):])
	}
	tests := []struct {
		name   string
		object func(s payloadStores) string // the key to overwrite
		tamper func(body []byte) []byte
	}{
		{"texts", func(s payloadStores) string {
			return decodeBatches(t, s.object(t, s.batchesKey(t)))[0]["text"].(map[string]any)["key"].(string)
		}, func(b []byte) []byte { return flip(b, "first text", "INJECTED!!") }},
		{"batches", func(s payloadStores) string { return s.batchesKey(t) },
			func(b []byte) []byte { return flip(b, `"communityIds":["c"]`, `"communityIds":["x"]`) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newPayloadStores(t, s3c)
			require.NoError(t, s.SavePlan(ctx, plan3("q-read", "run-1")))
			key := tc.object(s)
			body := s.object(t, key)
			tampered := tc.tamper(slices.Clone(body))
			require.Len(t, tampered, len(body))
			require.NotEqual(t, body, tampered)
			_, err := s.s3.next.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &key, Body: bytes.NewReader(tampered)})
			require.NoError(t, err)

			b, err := s.Runs.Batch(ctx, "q-read", 0)
			require.Error(t, err, "batch 0 read as %+v", b)
			assert.Equal(t, globalsearch.KindCorruptPayload, globalsearch.KindOf(err), "%v", err)
			assert.ErrorContains(t, err, key)
			p, err := s.Runs.Plan(ctx, "q-read")
			require.Error(t, err, "plan read as %+v", p)
			assert.Equal(t, globalsearch.KindCorruptPayload, globalsearch.KindOf(err), "%v", err)
			assert.ErrorContains(t, err, key)
			assert.Equal(t, "CorruptPayloadError", workflow.ErrorType(workflow.Named(err)))
		})
	}
}

// batchesKey is the batches object the plan item of q-read names.
func (s payloadStores) batchesKey(t *testing.T) string {
	t.Helper()
	out, err := s.dynamo.next.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &s.table, Key: runKey("q-read", "plan")})
	require.NoError(t, err)
	var raw struct {
		Plan struct {
			BatchesKey string `dynamodbav:"batchesKey"`
		} `dynamodbav:"plan"`
	}
	require.NoError(t, attributevalue.UnmarshalMap(out.Item, &raw))
	require.NotEmpty(t, raw.Plan.BatchesKey)
	return raw.Plan.BatchesKey
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
