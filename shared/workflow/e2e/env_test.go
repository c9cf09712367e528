package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
	"github.com/graphrag-global/graphrag-global/statemachine"
)

// The account, region and role moto is told about. moto checks none of
// them against IAM; the role only has to look like a role ARN.
const (
	account = "123456789012"
	region  = "us-east-1"
	roleARN = "arn:aws:iam::" + account + ":role/graphrag-e2e-states"
	modelID = "anthropic.claude-e2e-v1:0"
	// runsTable is the runs table, as the ASL's ${RunsTableName}.
	runsTable = "graphrag-runs"
	// payloadBucket is the payload bucket, as the ASL's ${PayloadBucketName}.
	payloadBucket = "graphrag-payloads"
)

// functionARN is the ARN the state machine invokes for a function; the
// fake Lambda API takes the short name back out of it.
func functionARN(name string) string {
	return "arn:aws:lambda:" + region + ":" + account + ":function:" + name
}

// env is one moto_server with Step Functions execution turned on, its
// tables, and the fakes it calls.
type env struct {
	moto   string
	sfn    *sfn.Client
	ddb    *dynamodb.Client
	index  *store.Index
	runs   *store.Runs
	tables store.Tables
	// s3 and bucket hold the batch texts.
	s3     *s3.Client
	bucket string
	lambda *fakeLambda
	// handlers serve the fake Lambda API; a test may lower
	// InlineMaxBatches before it starts an execution.
	handlers *workflow.Handlers
	// engine is the one the fake functions run; a test may configure it
	// before its first execution.
	engine *globalsearch.Engine
	// definition is the real ASL with test substitutions applied.
	definition  string
	regionsUsed atomic.Int32
}

// newEnv starts everything one test needs. moto is told the fake Lambda
// API's port as MOTO_PORT: its Step Functions interpreter builds every
// task's boto3 client with endpoint_url http://localhost:$MOTO_PORT
// (moto/stepfunctions/parser/asl/utils/boto_client.py) and listens itself
// on the -p port testenv passes, so MOTO_PORT redirects the Lambda calls
// only.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{}
	fl, lambdaSrv := newFakeLambda(t)
	e.lambda = fl
	lambdaURL, err := url.Parse(lambdaSrv.URL)
	require.NoError(t, err)

	e.moto = testenv.Moto(t, testenv.MotoOptions{Env: []string{"MOTO_PORT=" + lambdaURL.Port()}})
	motoURL, err := url.Parse(e.moto)
	require.NoError(t, err)
	fl.forwardToMoto(motoURL)
	motoPost(t, e.moto+"/moto-api/config", `{"stepfunctions":{"execute_state_machine":true}}`)

	e.ddb = testenv.DynamoDBClient(t, e.moto)
	e.tables = store.Tables{Index: "graphrag-index", Runs: runsTable}
	ctx := context.Background()
	require.NoError(t, store.CreateTables(ctx, e.ddb, e.tables))
	c := store.NewClient(e.ddb)
	e.index, err = store.NewIndex(c, e.tables.Index)
	require.NoError(t, err)
	e.runs, err = store.NewRuns(c, e.tables.Runs)
	require.NoError(t, err)
	// moto serves S3 too: the batch texts live in a bucket of its own, as
	// deployed (docs/contract.md#payloads-bucket).
	e.s3 = testenv.S3Client(t, e.moto)
	e.bucket = payloadBucket
	_, err = e.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(e.bucket)})
	require.NoError(t, err)
	payloads, err := store.NewPayloads(e.s3, e.bucket)
	require.NoError(t, err)
	e.runs = e.runs.WithPayloads(payloads)
	e.sfn = sfn.New(sfn.Options{
		Region:       region,
		BaseEndpoint: aws.String(e.moto),
		Credentials:  testenv.StaticCredentials(),
	})

	bedrockSrv := newFakeBedrock(t, fl)
	model, err := bedrock.New(aws.Config{
		Region:       region,
		Credentials:  testenv.StaticCredentials(),
		BaseEndpoint: aws.String(bedrockSrv.URL),
		HTTPClient:   &http.Client{Transport: tagging{next: http.DefaultTransport}},
	}, modelID,
		// Small, so a throttled Converse call costs milliseconds, while the
		// retry inside one invocation is still the SDK's real retryer.
		bedrock.WithMaxAttempts(3), bedrock.WithMaxBackoff(10*time.Millisecond))
	require.NoError(t, err)

	e.engine = &globalsearch.Engine{
		Index: e.index, Model: model, Runs: e.runs, MaxBatches: workflow.InlineMaxBatches,
	}
	h := &workflow.Handlers{
		Engine:   e.engine,
		Defaults: globalsearch.SpecDefaults,
		Failures: e.runs,
		Items:    payloads,
	}
	e.handlers = h
	fl.setHandlers(map[string]lambda.Handler{
		"prepare": lambda.NewHandlerWithOptions(h.Prepare, workflow.Options()...),
		"map":     lambda.NewHandlerWithOptions(h.Map, workflow.Options()...),
		"reduce":  lambda.NewHandlerWithOptions(h.Reduce, workflow.Options()...),
	})

	e.definition = definition(t)
	t.Cleanup(func() {
		fl.mu.Lock()
		defer fl.mu.Unlock()
		assert.Empty(t, fl.unknown, "invocations of no registered run: a payload lost its query id")
	})
	return e
}

func motoPost(t *testing.T, u, body string) {
	t.Helper()
	resp, err := http.Post(u, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Less(t, resp.StatusCode, 300, "POST %s", u)
}

// repoRoot is the module root, found from this file's directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

var placeholder = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// definition takes the real state machine (statemachine.Definition, the
// file as deployed) and applies what CloudFormation's
// DefinitionSubstitutions would: the fake functions' ARNs, and 1 for every
// substituted number of seconds. Every Retry's sleep is then capped at 1s
// (IntervalSeconds 1, MaxDelaySeconds 1): moto really sleeps them, honouring
// BackoffRate, MaxDelaySeconds and JitterStrategy FULL
// (moto/stepfunctions/parser/asl/component/common/retry/). Everything else
// (ErrorEquals, MaxAttempts, Catch, paths) runs as written.
func definition(t testing.TB) string {
	t.Helper()
	var unknown []string
	text := placeholder.ReplaceAllStringFunc(string(statemachine.Definition), func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		switch {
		case strings.HasSuffix(name, "FunctionArn"):
			return functionARN(strings.ToLower(strings.TrimSuffix(name, "FunctionArn")))
		case name == "RunsTableName":
			return runsTable
		case name == "PayloadBucketName":
			return payloadBucket
		case strings.HasSuffix(name, "Seconds"):
			return "1"
		}
		unknown = append(unknown, name)
		return m
	})
	require.Empty(t, unknown, "the ASL has substitutions this test does not know how to fill")

	var doc any
	require.NoError(t, json.Unmarshal([]byte(text), &doc), "the substituted ASL is not JSON")
	shrinkRetries(doc)
	return marshalDefinition(t, doc)
}

// marshalDefinition writes a decoded definition back for moto, which parses
// ToleratedFailurePercentage only as a decimal literal (EMULATORS.md):
// encoding/json writes the deployed 100.0 as 100.
func marshalDefinition(t testing.TB, doc any) string {
	t.Helper()
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	text := strings.ReplaceAll(string(out), `"ToleratedFailurePercentage":100,`, `"ToleratedFailurePercentage":100.0,`)
	require.Contains(t, text, `"ToleratedFailurePercentage":100.0`)
	return text
}

// shrinkRetries caps the sleeps of every Retry in the document.
func shrinkRetries(v any) {
	switch v := v.(type) {
	case map[string]any:
		if retries, ok := v["Retry"].([]any); ok {
			for _, r := range retries {
				if r, ok := r.(map[string]any); ok {
					r["IntervalSeconds"] = 1
					r["MaxDelaySeconds"] = 1
				}
			}
		}
		for _, child := range v {
			shrinkRetries(child)
		}
	case []any:
		for _, child := range v {
			shrinkRetries(child)
		}
	}
}

var names atomic.Int64

// uniqueName is a state machine or execution name no other case uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e9, names.Add(1))
}

// regions are the Step Functions regions the cases take, one state machine
// each. moto 5.2's StartExecution deep-copies the state machine, which
// holds its region's backend and so every execution in it; an execution
// that has run holds a lock, which cannot be copied, so a second
// StartExecution in a region whose backend has run one fails with HTTP 500
// (moto/stepfunctions/parser/models.py, start_execution). A region of its
// own per state machine avoids that and lets cases run in parallel. The
// tables stay in us-east-1: the Step Functions region only names the
// backend.
var regions = []string{
	"us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "eu-west-2", "eu-west-3",
	"eu-central-1", "eu-north-1", "ap-south-1", "ap-northeast-1", "ap-northeast-2",
	"ap-southeast-1", "ap-southeast-2", "ca-central-1", "sa-east-1",
	"ap-northeast-3", "eu-south-1", "ap-east-1", "me-south-1", "af-south-1",
}

// machine is a state machine and the region it lives in.
type machine struct {
	ARN    string
	Region string
}

func (m machine) in(o *sfn.Options) { o.Region = m.Region }

// newStateMachine creates a state machine from the test definition in a
// region no other state machine uses (see regions).
func (e *env) newStateMachine(t *testing.T) machine {
	t.Helper()
	return e.newStateMachineWith(t, e.definition)
}

// newStateMachineWith is newStateMachine with a definition of the test's
// own (the test definition changed further, never the deployed file).
func (e *env) newStateMachineWith(t *testing.T, definition string) machine {
	t.Helper()
	n := int(e.regionsUsed.Add(1)) - 1
	require.Less(t, n, len(regions), "more state machines than regions; add regions")
	m := machine{Region: regions[n]}
	out, err := e.sfn.CreateStateMachine(context.Background(), &sfn.CreateStateMachineInput{
		Name:       aws.String(uniqueName("globalsearch")),
		Definition: aws.String(definition),
		RoleArn:    aws.String(roleARN),
		Type:       sfntypes.StateMachineTypeStandard,
	}, m.in)
	require.NoError(t, err, "create the state machine from statemachine/globalsearch.asl.json")
	m.ARN = aws.ToString(out.StateMachineArn)
	return m
}

func (e *env) startExecution(m machine, name string, input any) (string, error) {
	data, err := json.Marshal(input)
	if err != nil {
		return "", err
	}
	out, err := e.sfn.StartExecution(context.Background(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(m.ARN), Name: aws.String(name), Input: aws.String(string(data)),
	}, m.in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.ExecutionArn), nil
}

func (e *env) start(t *testing.T, m machine, name string, input any) string {
	t.Helper()
	arn, err := e.startExecution(m, name, input)
	require.NoError(t, err)
	return arn
}

// executionTimeout bounds one execution; moto runs one in seconds here.
const executionTimeout = 60 * time.Second

// wait polls DescribeExecution until the execution ends.
func (e *env) wait(t *testing.T, m machine, arn string) *sfn.DescribeExecutionOutput {
	t.Helper()
	return e.waitFor(t, m, arn, executionTimeout)
}

// waitFor is wait for an execution that may take up to timeout: one whose
// tasks run one at a time on a loaded machine.
func (e *env) waitFor(t *testing.T, m machine, arn string, timeout time.Duration) *sfn.DescribeExecutionOutput {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(timeout)
	for {
		out, err := e.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)}, m.in)
		require.NoError(t, err)
		if out.Status != sfntypes.ExecutionStatusRunning && out.Status != sfntypes.ExecutionStatusPendingRedrive {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s still %s after %s\n%s", arn, out.Status, timeout, e.history(m, arn))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// history renders an execution's events for a failing test's message.
func (e *env) history(m machine, arn string) string {
	var b bytes.Buffer
	p := sfn.NewGetExecutionHistoryPaginator(e.sfn, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background(), m.in)
		if err != nil {
			fmt.Fprintf(&b, "history: %v\n", err)
			break
		}
		for _, ev := range page.Events {
			detail, _ := json.Marshal(struct {
				TaskFailed      any `json:",omitempty"`
				ExecutionFailed any `json:",omitempty"`
				StateEntered    any `json:",omitempty"`
			}{ev.TaskFailedEventDetails, ev.ExecutionFailedEventDetails, ev.StateEnteredEventDetails})
			fmt.Fprintf(&b, "%3d %-32s %s\n", ev.Id, ev.Type, detail)
		}
	}
	return b.String()
}

// taskErrors counts the errors of an execution's failed tasks by name: the
// names Retry and Catch matched on.
func (e *env) taskErrors(t *testing.T, m machine, arn string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	p := sfn.NewGetExecutionHistoryPaginator(e.sfn, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background(), m.in)
		require.NoError(t, err)
		for _, ev := range page.Events {
			if d := ev.TaskFailedEventDetails; d != nil {
				counts[aws.ToString(d.Error)]++
			}
		}
	}
	return counts
}

// runItems is every sort key stored under a query id in the runs table,
// read directly: the store adapter hides duplicates by design, so the
// table's own items are the only witness of none.
func (e *env) runItems(t *testing.T, queryID string) []string {
	t.Helper()
	var sks []string
	var start map[string]ddbtypes.AttributeValue
	for {
		out, err := e.ddb.Query(context.Background(), &dynamodb.QueryInput{
			TableName:                 aws.String(e.tables.Runs),
			KeyConditionExpression:    aws.String("queryId = :q"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":q": &ddbtypes.AttributeValueMemberS{Value: queryID}},
			ExclusiveStartKey:         start,
			ConsistentRead:            aws.Bool(true),
		})
		require.NoError(t, err)
		for _, it := range out.Items {
			if sk, ok := it["sk"].(*ddbtypes.AttributeValueMemberS); ok {
				sks = append(sks, sk.Value)
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return sks
		}
		start = out.LastEvaluatedKey
	}
}

// expiresAt is the expiresAt of one runs-table item, read directly ("" when
// the item has none).
func (e *env) expiresAt(t *testing.T, queryID, sk string) string {
	t.Helper()
	out, err := e.ddb.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(e.tables.Runs),
		Key: map[string]ddbtypes.AttributeValue{
			"queryId": &ddbtypes.AttributeValueMemberS{Value: queryID}, "sk": &ddbtypes.AttributeValueMemberS{Value: sk},
		},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	if n, ok := out.Item["expiresAt"].(*ddbtypes.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}
