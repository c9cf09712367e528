package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/execution"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// apiFor is the HTTP API's handler over this env's runs table and state
// machine m, as functions/api wires it (docs/contract.md#cancel).
func (e *env) apiFor(m machine) *api.Handler {
	client := sfn.New(sfn.Options{Region: m.Region, BaseEndpoint: aws.String(e.moto), Credentials: testenv.StaticCredentials()})
	return &api.Handler{Runs: e.runs, Starter: execution.New(client, m.ARN), Defaults: globalsearch.SpecDefaults}
}

// serve sends one request through the handler and decodes its body.
func serve(t *testing.T, h *api.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: path, Body: body}
	req.RequestContext.HTTP.Method = method
	resp, err := h.Handle(context.Background(), req)
	require.NoError(t, err)
	var b map[string]any
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &b), resp.Body)
	return resp.StatusCode, b
}

// TestCancelThroughTheAPI starts a run through the HTTP API and holds its
// reduce at a gate; reads the map progress (answers, and in the
// Distributed Map the failure the state machine recorded); cancels it, which
// stops the execution on moto; then lets the reduce go on. The real reduce
// cannot save over the cancelled result (its function answers
// NotFoundError), and GET reads cancelled (docs/contract.md#progress,
// docs/contract.md#cancel).
//
// Two things moto 5.2 does unlike AWS, which marks a stopped execution
// ABORTED at once: it keeps it RUNNING until the state in flight returns,
// and then fails it with that state's error if it had one (here the
// refused reduce); and it fails an execution stopped inside an inline Map
// (States.Runtime, an AttributeError of its own). So the gate is at reduce,
// not in the Map, and the case checks that the stop was accepted and the
// execution ended, not which status moto gives it.
func TestCancelThroughTheAPI(t *testing.T) {
	t.Parallel()
	const batches = 3
	cases := []struct {
		name      string
		inlineMax int // Handlers.InlineMaxBatches; 0 for the default
		model     func(call modelCall) modeltest.ConverseReply
		want      map[string]any
	}{
		{name: "inline", model: healthyModel,
			want: map[string]any{"done": float64(3), "failed": float64(0), "total": float64(batches)}},
		{name: "distributed, one batch failed", inlineMax: 2, model: failModel(modelError(), mapBatch(1)),
			want: map[string]any{"done": float64(2), "failed": float64(1), "total": float64(batches)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.handlers.InlineMaxBatches = tc.inlineMax
			slug := strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", "-"), ",", "")
			queryID := uniqueName("q-cancel-" + slug)
			namespace := strings.ToLower(uniqueName("ns-cancel-" + slug))
			e.loadIndex(t, namespace, batches)

			gate, atReduce := make(chan struct{}), make(chan struct{}, 1)
			var release sync.Once
			t.Cleanup(func() { release.Do(func() { close(gate) }) }) // a failing case still lets moto finish
			rn := newRun()
			rn.model = tc.model
			rn.fault = func(inv invocation) *lambdaReply {
				if inv.Function == "reduce" {
					atReduce <- struct{}{}
					<-gate
				}
				return nil
			}
			e.lambda.register(queryID, rn)
			m := e.newStateMachine(t)
			h := e.apiFor(m)
			cancelRun(t, e, h, m, rn, queryID, namespace, tc.want, atReduce, func() { release.Do(func() { close(gate) }) })
		})
	}
}

// cancelRun is TestCancelThroughTheAPI's steps for one case.
func cancelRun(t *testing.T, e *env, h *api.Handler, m machine, rn *run, queryID, namespace string, progress map[string]any, atReduce <-chan struct{}, release func()) {
	input, err := json.Marshal(request(queryID, namespace))
	require.NoError(t, err)
	status, b := serve(t, h, http.MethodPost, "/namespaces/"+namespace+"/queries", string(input))
	require.Equal(t, http.StatusAccepted, status, b)
	path := "/namespaces/" + namespace + "/queries/" + queryID

	<-atReduce // every batch is answered or recorded as failed
	status, b = serve(t, h, http.MethodGet, path, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "running", b["status"])
	assert.Equal(t, map[string]any{"map": progress}, b["progress"])

	status, b = serve(t, h, http.MethodGet, "/namespaces/other/queries/"+queryID, "")
	assert.Equal(t, http.StatusNotFound, status, "another namespace reads nothing: %v", b)
	status, b = serve(t, h, http.MethodDelete, "/namespaces/other/queries/"+queryID, "")
	assert.Equal(t, http.StatusNotFound, status, "nor cancels: %v", b)

	status, b = serve(t, h, http.MethodDelete, path, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "cancelled", b["status"])
	assert.Equal(t, namespace, b["namespace"])

	// The held reduce goes on and tries to save its result, too late.
	release()
	arn := strings.Replace(m.ARN, ":stateMachine:", ":execution:", 1) + ":" + queryID
	out := e.wait(t, m, arn)
	assert.NotEqual(t, sfntypes.ExecutionStatusSucceeded, out.Status, "a stopped execution does not succeed\n%s", e.history(m, arn))
	assert.Equal(t, 1, rn.count("reduce"), "the one reduce that was held")
	rn.mu.Lock()
	assert.Equal(t, []string{"NotFoundError"}, rn.errors["reduce"], "the late reduce's save was refused")
	rn.mu.Unlock()

	status, b = serve(t, h, http.MethodGet, path, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "cancelled", b["status"], "the late reduce did not overwrite the cancelled result")
	assert.NotContains(t, b, "progress")
	assert.Empty(t, b["answer"])
	status, b = serve(t, h, http.MethodDelete, path, "")
	assert.Equal(t, http.StatusOK, status, "a repeated cancel answers the same: %v", b)
	assert.Equal(t, "cancelled", b["status"])
}

// TestCancelFinishedThroughTheAPI: a query whose run finished is not
// cancelled: DELETE answers 409 conflict, the execution is left as it
// ended and the result as it was saved.
func TestCancelFinishedThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	queryID := uniqueName("q-cancel-done")
	namespace := strings.ToLower(uniqueName("ns-cancel-done"))
	e.loadIndex(t, namespace, 2)
	rn := newRun()
	rn.model = healthyModel
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	h := e.apiFor(m)
	input, err := json.Marshal(request(queryID, namespace))
	require.NoError(t, err)
	status, b := serve(t, h, http.MethodPost, "/namespaces/"+namespace+"/queries", string(input))
	require.Equal(t, http.StatusAccepted, status, b)
	arn := strings.Replace(m.ARN, ":stateMachine:", ":execution:", 1) + ":" + queryID
	out := e.wait(t, m, arn)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))

	path := "/namespaces/" + namespace + "/queries/" + queryID
	status, b = serve(t, h, http.MethodDelete, path, "")
	assert.Equal(t, http.StatusConflict, status, b)
	assert.Equal(t, "conflict", b["error"])
	status, b = serve(t, h, http.MethodGet, path, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "completed", b["status"])
	after, err := e.sfn.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)}, m.in)
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusSucceeded, after.Status)
}
