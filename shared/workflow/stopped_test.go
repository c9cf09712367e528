package workflow_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// stoppedEvent is the reduce function's input for an execution named name
// that ended with status, its input input (nil: the event left it out), as
// the StoppedExecutionRule's transformer writes it.
func stoppedEvent(t *testing.T, name, status string, input *string) string {
	t.Helper()
	detail := map[string]any{"name": name, "status": status, "executionArn": "arn:aws:states:eu-west-1:1:execution:m:" + name,
		"input": input, "inputDetails": map[string]any{"included": input != nil}, "redriveCount": 0, "error": "Cancelled", "cause": "by hand"}
	b, err := json.Marshal(map[string]any{"task": "stopped", "execution": detail})
	require.NoError(t, err)
	return string(b)
}

// tokenModel answers every map batch with 120 input and 12 output tokens.
func tokenModel() *fakeModel {
	return &fakeModel{complete: func(context.Context, globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		return globalsearch.ModelResponse{Text: `{"answer":"partial","usefulness":50}`, InputTokens: 120, OutputTokens: 12}, nil
	}}
}

// TestStoppedTask: an execution stopped outside the API (the EventBridge
// event's detail) records its run's result as cancelled with what its map
// calls spent (docs/contract.md#stopped-executions); the query id is the
// request's, else the execution's name, and a second event, or one of an
// execution that does not own the id, writes nothing.
func TestStoppedTask(t *testing.T) {
	cases := []struct {
		name, execution, request string
		input                    func(request string) *string
		queryID                  string
	}{
		{name: "the request names its query id", execution: "exec-1", request: `{"query":"q","queryId":"q-stop"}`,
			input: func(r string) *string { return &r }, queryID: "q-stop"},
		{name: "the execution name is the query id", execution: "exec-2", request: `{"query":"q"}`,
			input: func(r string) *string { return &r }, queryID: "exec-2"},
		{name: "the event left the input out", execution: "exec-3", request: `{"query":"q"}`,
			input: func(string) *string { return nil }, queryID: "exec-3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, tokenModel())
			ctx := context.Background()
			out, err := invoke(t, h.Prepare, `{"request":`+tc.request+`,"executionName":"`+tc.execution+`"}`)
			require.NoError(t, err, out)
			var prepared workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &prepared))
			require.Equal(t, tc.queryID, prepared.QueryID)
			require.Equal(t, 3, prepared.BatchCount)
			for i := range 2 { // the third was in flight at the stop
				_, err := h.Map(ctx, workflow.MapInput{QueryID: tc.queryID, RunID: prepared.RunID, BatchIndex: i, Attempt: 1})
				require.NoError(t, err)
			}

			out, err = invoke(t, h.Reduce, stoppedEvent(t, tc.execution, "ABORTED", tc.input(tc.request)))
			require.NoError(t, err, out)
			assert.JSONEq(t, `{"queryId":"`+tc.queryID+`","status":"cancelled"}`, out)
			res, err := s.Result(ctx, tc.queryID)
			require.NoError(t, err)
			assert.Equal(t, globalsearch.StatusCancelled, res.Status)
			assert.Equal(t, 2, res.Diagnostics.ModelCalls)
			assert.Equal(t, 2, res.Diagnostics.Map.ModelCalls)
			assert.Equal(t, 240, res.Diagnostics.InputTokens)
			assert.Equal(t, 24, res.Diagnostics.OutputTokens)
			assert.Equal(t, 3, res.Diagnostics.BatchCount, "what the run planned")

			out, err = invoke(t, h.Reduce, stoppedEvent(t, tc.execution, "FAILED", tc.input(tc.request)))
			require.NoError(t, err, out)
			assert.JSONEq(t, `{"queryId":"`+tc.queryID+`"}`, out, "a second event writes nothing")
			out, err = invoke(t, h.Reduce, stoppedEvent(t, "someone-else", "ABORTED", tc.input(tc.request)))
			require.NoError(t, err, out)
			assert.NotContains(t, out, "status", "an execution that does not own the id writes nothing")
		})
	}
}

// TestStoppedTaskRefusesBadInput: a stopped task input that is not an
// ended execution, or that carries another task's fields, is invalid input
// before any read.
func TestStoppedTaskRefusesBadInput(t *testing.T) {
	cases := []struct{ name, payload string }{
		{"no execution", `{"task":"stopped","queryId":"q1"}`},
		{"no name", `{"task":"stopped","execution":{"status":"ABORTED"}}`},
		{"still running", `{"task":"stopped","execution":{"name":"e1","status":"RUNNING"}}`},
		{"succeeded", `{"task":"stopped","execution":{"name":"e1","status":"SUCCEEDED"}}`},
		{"another task's field", `{"task":"stopped","runId":"r1","execution":{"name":"e1","status":"ABORTED"}}`},
		{"map results", `{"task":"stopped","mapResults":[],"execution":{"name":"e1","status":"ABORTED"}}`},
		{"a name that is no query id", `{"task":"stopped","execution":{"name":"a b","status":"ABORTED"}}`},
		{"a detail field of the wrong type", `{"task":"stopped","execution":{"name":7,"status":"ABORTED"}}`},
		{"execution on the reduce step", `{"queryId":"q1","mapResults":[],"execution":{"name":"e1","status":"ABORTED"}}`},
		{"execution on a round", `{"task":"round","queryId":"q1","runId":"r1","mapResults":[],"execution":{"name":"e1","status":"ABORTED"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := fixture(t, tokenModel())
			_, err := invoke(t, h.Reduce, tc.payload)
			require.Error(t, err)
			assert.Equal(t, "InvalidInputError", workflow.ErrorType(err), err.Error())
		})
	}
}

// runsOnly is a runs store that cannot record a stopped execution.
type runsOnly struct{ globalsearch.Runs }

// TestStoppedTaskWithoutTheStorePort: a reduce function wired to a store
// without the stopped-execution record fails as a bug (InternalError).
func TestStoppedTaskWithoutTheStorePort(t *testing.T) {
	h, s := fixture(t, tokenModel())
	h.Engine.Runs = runsOnly{s}
	_, err := invoke(t, h.Reduce, stoppedEvent(t, "exec-1", "ABORTED", nil))
	require.Error(t, err)
	assert.Equal(t, "InternalError", workflow.ErrorType(err))
}
