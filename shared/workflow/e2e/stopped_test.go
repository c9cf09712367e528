package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// stoppedEventFor is the recorded EventBridge sample
// (events/eventbridge-execution-aborted.json) with the detail of execution
// arn of machine m, as moto's Step Functions emits none, put through the
// StoppedExecutionRule's input transformer (template.yaml): the reduce
// function's input.
func stoppedEventFor(t *testing.T, m machine, arn, name string, input any) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "events", "eventbridge-execution-aborted.json"))
	require.NoError(t, err)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(raw, &ev))
	in, err := json.Marshal(input)
	require.NoError(t, err)
	detail := ev["detail"].(map[string]any)
	detail["executionArn"], detail["stateMachineArn"], detail["name"], detail["input"] = arn, m.ARN, name, string(in)
	ev["resources"] = []any{arn}
	detailJSON, err := json.Marshal(detail)
	require.NoError(t, err)
	tpl, err := os.ReadFile(filepath.Join(repoRoot(t), "template.yaml"))
	require.NoError(t, err)
	match := regexp.MustCompile(`(?s)StoppedExecutionRule:.*?InputTemplate: '([^']*)'`).FindSubmatch(tpl)
	require.NotNil(t, match, "the rule's InputTemplate")
	return []byte(strings.ReplaceAll(string(match[1]), "<detail>", string(detailJSON)))
}

// TestStoppedExecutionOnAWS: an execution stopped outside the HTTP API
// (StopExecution, as the console, the CLI or a parent workflow sends it)
// while its Map has two batches answered and a third in flight leaves, once
// the StoppedExecutionRule's event reaches the reduce function, a
// cancelled result with the two answered calls and their tokens
// (docs/contract.md#stopped-executions); the call in flight left no record.
// A second event writes nothing, and the API reads and cancels it as any
// cancelled query.
func TestStoppedExecutionOnAWS(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	queryID := uniqueName("q-stopped")
	namespace := strings.ToLower(uniqueName("ns-stopped"))
	e.loadIndex(t, namespace, 3)
	gate, inFlight := make(chan struct{}), make(chan struct{}, 1)
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(gate) }) })
	rn := newRun()
	rn.model = healthyModel
	rn.fault = func(inv invocation) *lambdaReply {
		if inv.Function == "map" && inv.Batch == 2 {
			inFlight <- struct{}{}
			<-gate
			return crash() // the stopped execution never hears from it
		}
		return nil
	}
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	input := request(queryID, namespace)
	arn := e.start(t, m, queryID, input)

	<-inFlight
	require.Eventually(t, func() bool {
		p, err := e.runs.MapProgress(context.Background(), queryID)
		return err == nil && p.Done == 2
	}, 30e9, 50e6, "batches 0 and 1 answered")
	_, err := e.sfn.StopExecution(context.Background(), &sfn.StopExecutionInput{ExecutionArn: aws.String(arn),
		Error: aws.String("Cancelled"), Cause: aws.String("stopped from the console")}, m.in)
	require.NoError(t, err)
	release.Do(func() { close(gate) })
	e.wait(t, m, arn)

	reduce := lambda.NewHandlerWithOptions(e.handlers.Reduce, workflow.Options()...)
	event := stoppedEventFor(t, m, arn, queryID, input)
	out, err := reduce.Invoke(context.Background(), event)
	require.NoError(t, err, "%s", out)
	assert.JSONEq(t, `{"queryId":"`+queryID+`","status":"cancelled"}`, string(out))

	res, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	rn.mu.Lock()
	made := sum(rn.models)
	rn.mu.Unlock()
	assert.Equal(t, 2, made, "batch 2's call never reached the model")
	assert.Equal(t, globalsearch.StatusCancelled, res.Status)
	assert.Equal(t, made, res.Diagnostics.ModelCalls)
	assert.Equal(t, made, res.Diagnostics.Map.ModelCalls)
	assert.Equal(t, made*100, res.Diagnostics.InputTokens, "the fake model's 100 input tokens a call")
	assert.Equal(t, made*20, res.Diagnostics.OutputTokens)
	assert.Equal(t, 3, res.Diagnostics.BatchCount)

	out, err = reduce.Invoke(context.Background(), event)
	require.NoError(t, err)
	assert.JSONEq(t, `{"queryId":"`+queryID+`"}`, string(out), "a second event writes nothing")

	h := e.apiFor(m)
	status, b := serve(t, h, http.MethodGet, "/namespaces/"+namespace+"/queries/"+queryID, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "cancelled", b["status"])
	status, b = serve(t, h, http.MethodDelete, "/namespaces/"+namespace+"/queries/"+queryID, "")
	assert.Equal(t, http.StatusOK, status, "a cancel of it answers its result: %v", b)
	assert.Equal(t, "cancelled", b["status"])
}
