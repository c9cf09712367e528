package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// recordingS3 records the object requests of the functions.
type recordingS3 struct {
	next store.S3API
	mu   sync.Mutex
	puts []string // keys
	gets []string // keys of ranged reads
}

func (r *recordingS3) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	r.mu.Lock()
	r.puts = append(r.puts, aws.ToString(in.Key))
	r.mu.Unlock()
	return r.next.PutObject(ctx, in, o...)
}

func (r *recordingS3) GetObject(ctx context.Context, in *s3.GetObjectInput, o ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	if in.Range != nil {
		r.mu.Lock()
		r.gets = append(r.gets, aws.ToString(in.Key))
		r.mu.Unlock()
	}
	return r.next.GetObject(ctx, in, o...)
}

func (r *recordingS3) since(puts, gets int) ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.puts[puts:]...), append([]string(nil), r.gets[gets:]...)
}

// TestBatchTextsInTheBucket runs a query id twice on moto, the index
// changed in between (docs/contract.md#payloads-bucket): each prepare
// writes its run's texts and batches as two objects under the run's
// prefix, the runs table holds no batch item, every map task reads its
// batch by range from its own run's objects, and the second run reads
// nothing of the first's.
func TestBatchTextsInTheBucket(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rec := &recordingS3{next: e.s3}
	payloads, err := store.NewPayloads(rec, e.bucket)
	require.NoError(t, err)
	e.engine.Runs = e.runs.WithPayloads(payloads)

	queryID := uniqueName("q-texts")
	namespace := uniqueName("ns-texts")
	puts, gets := 0, 0
	for i, batches := range []int{2, 3} {
		e.loadIndex(t, namespace, batches)
		e.lambda.register(queryID, newRun())
		// A state machine each: moto runs one execution at a time per
		// region (EMULATORS.md), and each machine has a region of its own.
		m := e.newStateMachine(t)
		arn := e.start(t, m, uniqueName("exec-texts"), request(queryID, namespace))
		out := e.wait(t, m, arn)
		require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
		res, err := e.runs.Result(ctx, queryID)
		require.NoError(t, err)
		require.Equal(t, globalsearch.StatusCompleted, res.Status, "run %d: %s", i+1, res.Error)
		plan, err := e.runs.PlanMeta(ctx, queryID)
		require.NoError(t, err)
		require.Len(t, plan.Batches, batches)

		newPuts, newGets := rec.since(puts, gets)
		puts, gets = puts+len(newPuts), gets+len(newGets)
		prefix := store.PayloadPrefix + queryID + "/" + plan.RunID + "/"
		require.Len(t, newPuts, 2, "run %d: two objects per plan", i+1)
		for _, key := range newPuts {
			assert.True(t, strings.HasPrefix(key, prefix), "run %d: %s under %s", i+1, key, prefix)
		}
		assert.GreaterOrEqual(t, len(newGets), 3*batches, "run %d: three ranged reads per map task", i+1)
		for _, key := range newGets {
			assert.Contains(t, newPuts, key, "run %d reads its own run's objects only", i+1)
		}
		assert.Empty(t, e.batchItems(t, queryID, plan.RunID), "run %d: the runs table holds no batch item", i+1)
	}
	listed, err := e.s3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(e.bucket), Prefix: aws.String(store.PayloadPrefix + queryID + "/")})
	require.NoError(t, err)
	assert.Len(t, listed.Contents, 4, "the first run's objects stay until the bucket's lifecycle rule expires them")
}

// batchItems reads the batch items of a run straight from the table.
func (e *env) batchItems(t *testing.T, queryID, runID string) []map[string]ddbtypes.AttributeValue {
	t.Helper()
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key("queryId").Equal(expression.Value(queryID)).
		And(expression.Key("sk").BeginsWith("batch#" + runID + "#"))).Build()
	require.NoError(t, err)
	out, err := e.ddb.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(e.tables.Runs), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	require.NoError(t, err)
	return out.Items
}

// preparedOutput is the Prepare state's output in an execution's history.
func (e *env) preparedOutput(t *testing.T, m machine, arn string) workflow.PrepareOutput {
	t.Helper()
	for _, ev := range e.events(t, m, arn) {
		if d := ev.StateExitedEventDetails; d != nil && aws.ToString(d.Name) == "Prepare" {
			var out workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(aws.ToString(d.Output)), &out))
			return out
		}
	}
	require.FailNow(t, "the execution's history has no Prepare output")
	return workflow.PrepareOutput{}
}
