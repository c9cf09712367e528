package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// crash is what the Invoke API answers when the function's process dies
// (out of memory, a panic outside the handler): a function error the
// runtime, not the handler, names.
func crash() *lambdaReply {
	return &lambdaReply{
		Status:        http.StatusOK,
		FunctionError: "Unhandled",
		Body:          `{"errorType":"Runtime.ExitError","errorMessage":"RequestId: 7c1e Error: Runtime exited with error: signal: killed"}`,
	}
}

// sandboxTimeout is the Invoke API's answer for a function stopped at its
// Timeout.
func sandboxTimeout() *lambdaReply {
	return &lambdaReply{
		Status:        http.StatusOK,
		FunctionError: "Unhandled",
		Body:          `{"errorType":"Sandbox.Timedout","errorMessage":"RequestId: 9a2f Error: Task timed out after 300.00 seconds"}`,
	}
}

// withTimeouts returns the test definition with TimeoutSeconds replaced in
// the named states: a test's stand-in for a function that outlives its
// task, without waiting minutes (the deployed file is never changed).
func withTimeouts(t *testing.T, definition string, seconds map[string]int) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(definition), &doc))
	found := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ss, ok := v["States"].(map[string]any); ok {
				for name, s := range ss {
					if secs, ok := seconds[name]; ok {
						s.(map[string]any)["TimeoutSeconds"] = secs
						found++
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	require.Equal(t, len(seconds), found, "every state named has a TimeoutSeconds to replace")
	return marshalDefinition(t, doc)
}

// noStarter fails a test whose GET asks Step Functions: a recorded result
// must answer without it.
type noStarter struct{ t *testing.T }

func (s noStarter) Start(context.Context, string, []byte) error {
	s.t.Error("the API started an execution")
	return nil
}

func (s noStarter) Execution(context.Context, string) (string, string, error) {
	s.t.Error("GET asked Step Functions: the runs table had no result")
	return "", "", nil
}

func (s noStarter) Stop(context.Context, string, string) error {
	s.t.Error("the API stopped an execution")
	return nil
}

// capturingStarter is the API's Starter that starts nothing: it keeps the
// execution name and input, for the test to start the execution itself.
type capturingStarter struct {
	name  string
	input []byte
}

func (s *capturingStarter) Start(_ context.Context, name string, input []byte) error {
	s.name, s.input = name, input
	return nil
}

func (s *capturingStarter) Execution(context.Context, string) (string, string, error) {
	return "", "", nil
}

func (s *capturingStarter) Stop(context.Context, string, string) error { return nil }

// postQuery is POST /namespaces/{namespace}/queries through the API
// handler over the runs table: it claims the query id as the API does and
// returns the execution the API would start.
func postQuery(t *testing.T, e *env, namespace string, body any) (name string, input json.RawMessage) {
	t.Helper()
	starter := &capturingStarter{}
	h := &api.Handler{Runs: e.runs, Starter: starter, Defaults: globalsearch.SpecDefaults}
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	var req events.APIGatewayV2HTTPRequest
	req.RawPath = "/namespaces/" + namespace + "/queries"
	req.PathParameters = map[string]string{"namespace": namespace}
	req.RequestContext.HTTP.Method = http.MethodPost
	req.Body = string(raw)
	resp, err := h.Handle(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, resp.Body)
	return starter.name, starter.input
}

// getQuery is GET /namespaces/{namespace}/queries/{id} through the API
// handler over the runs table.
func getQuery(t *testing.T, e *env, namespace, id string) (int, map[string]any) {
	t.Helper()
	h := &api.Handler{Runs: e.runs, Starter: noStarter{t}, Defaults: globalsearch.SpecDefaults}
	var req events.APIGatewayV2HTTPRequest
	req.RawPath = "/namespaces/" + namespace + "/queries/" + id
	req.PathParameters = map[string]string{"namespace": namespace, "id": id}
	req.RequestContext.HTTP.Method = http.MethodGet
	resp, err := h.Handle(context.Background(), req)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &body), resp.Body)
	return resp.StatusCode, body
}

// TestUncaughtFailures: every way an execution fails leaves a failed
// result, with the error's name and cause, that the store and the API
// read; the execution then fails with that same error name.
func TestUncaughtFailures(t *testing.T) {
	// Its own moto server and regions: it runs beside the other suites.
	t.Parallel()
	e := newEnv(t)
	rep := &report{}
	t.Cleanup(func() { rep.print(t) })
	cases := []struct {
		name      string
		summaries int
		noQueryID bool
		// ownName starts the execution under a name that is not the
		// query id, as another workflow may: the result is still keyed by
		// the request's queryId.
		ownName  bool
		fault    func(inv invocation) *lambdaReply
		model    func(call modelCall) modeltest.ConverseReply
		timeouts map[string]int

		wantError       string   // the execution's error, and the result's error name
		wantResultError []string // substrings of the result's error
		wantInvokes     map[string]int
		// wantTaskErrors counts failed tasks by error name (timeouts are
		// not task failures).
		wantTaskErrors map[string]int
		wantQuery      bool // the result names the query (a function saved it)
		// wantSpend: the failed result counts every model call the run
		// made (docs/contract.md#stopped-executions).
		wantSpend bool
		// noRequest: the execution failed before prepare claimed the
		// query id, so it owns no result and writes none
		// (docs/contract.md#query-ids): the runs table has nothing under
		// the id and the API reads it as not found.
		noRequest bool
		// claimed: the query id is claimed through the API's POST, which
		// names the id's owner by the query id, the name of the execution
		// it starts.
		claimed bool
	}{
		{
			name:            "prepare crashes after the API claimed the id",
			summaries:       1,
			claimed:         true,
			fault:           func(inv invocation) *lambdaReply { return crash() },
			wantError:       "Runtime.ExitError",
			wantResultError: []string{"Runtime.ExitError: ", "signal: killed"},
			wantInvokes:     map[string]int{"prepare": 1, "map": 0, "reduce": 0},
			wantTaskErrors:  map[string]int{"Runtime.ExitError": 1},
		},
		{
			// A schedule's request has no queryId and prepare dies before
			// it stores anything: the execution name would key the result,
			// but the execution never claimed it.
			name:            "prepare crashes on a scheduled start",
			summaries:       1,
			noQueryID:       true,
			fault:           func(inv invocation) *lambdaReply { return crash() },
			wantError:       "Runtime.ExitError",
			wantResultError: []string{"Runtime.ExitError: ", "signal: killed"},
			wantInvokes:     map[string]int{"prepare": 1, "map": 0, "reduce": 0},
			// The refused write is not retried.
			wantTaskErrors: map[string]int{"Runtime.ExitError": 1, "DynamoDB.ConditionalCheckFailedException": 1},
			noRequest:      true,
		},
		{
			name:      "prepare throttled until the Lambda retries are spent",
			summaries: 1,
			ownName:   true,
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "prepare" {
					return throttle()
				}
				return nil
			},
			wantError:       "Lambda.TooManyRequestsException",
			wantResultError: []string{"Lambda.TooManyRequestsException: ", "Rate Exceeded"},
			wantInvokes:     map[string]int{"prepare": 4, "map": 0, "reduce": 0},
			wantTaskErrors:  map[string]int{"Lambda.TooManyRequestsException": 4, "DynamoDB.ConditionalCheckFailedException": 1},
			noRequest:       true,
		},
		{
			// The function hangs past the task's TimeoutSeconds (1 s here):
			// the Catch hands States.Timeout, which has no Cause, to
			// RecordReduceFailure. The hung invocation never answers in
			// time, so it cannot overwrite the failed result.
			name:      "reduce times out",
			summaries: 1,
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "reduce" && inv.N == 1 {
					time.Sleep(3 * time.Second)
					return crash()
				}
				return nil
			},
			timeouts: map[string]int{"Reduce": 1},
			// A Fail state may not raise a States.* name again.
			wantError:       "Search.States.Timeout",
			wantResultError: []string{"States.Timeout"},
			wantInvokes:     map[string]int{"prepare": 1, "map": 1, "reduce": 2},
			wantTaskErrors:  map[string]int{},
			wantQuery:       true,
			wantSpend:       true,
		},
		{
			// Reduce's runtime dies, and the invocation that would record
			// it outlives the function's Timeout: RecordFailure writes the
			// result itself, and RecordFailureSpend (the reduce function's
			// task stopped, which this fault spares) adds the run's spend
			// (docs/contract.md#stopped-executions).
			name:      "reduce crashes and its recording times out",
			summaries: 1,
			fault: func(inv invocation) *lambdaReply {
				switch {
				case inv.Function == "reduce" && inv.Task != "":
					return nil
				case inv.Function == "reduce" && inv.N == 1:
					return crash()
				case inv.Function == "reduce":
					return sandboxTimeout()
				}
				return nil
			},
			wantError:       "Runtime.ExitError",
			wantResultError: []string{"Runtime.ExitError: ", "signal: killed"},
			wantInvokes:     map[string]int{"prepare": 1, "map": 1, "reduce": 3},
			wantTaskErrors:  map[string]int{"Runtime.ExitError": 1, "Sandbox.Timedout": 1},
			wantSpend:       true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			slug := strings.ReplaceAll(tc.name, " ", "-")
			queryID := uniqueName("q-" + slug)
			// A namespace is at most 64 characters, and the API reads it
			// from the path.
			namespace := strings.ToLower(uniqueName("ns-" + slug[:min(len(slug), 40)]))
			e.loadIndex(t, namespace, tc.summaries)
			rn := newRun()
			rn.fault, rn.model = tc.fault, tc.model
			e.lambda.register(queryID, rn)
			requestID := queryID
			if tc.noQueryID {
				requestID = ""
			}
			def := e.definition
			if tc.timeouts != nil {
				def = withTimeouts(t, def, tc.timeouts)
			}
			m := e.newStateMachineWith(t, def)
			execName := queryID
			if tc.ownName {
				execName = uniqueName("exec-" + slug)
			}
			var input any = request(requestID, namespace)
			if tc.claimed {
				var name string
				name, input = postQuery(t, e, namespace, input)
				require.Equal(t, queryID, name, "the API names its execution by the query id")
			}
			arn := e.start(t, m, execName, input)
			out := e.wait(t, m, arn)
			res, resErr := e.runs.Result(context.Background(), queryID)
			rep.add(t, tc.name, out.Status, res.Status, rn, time.Since(start))

			require.Equal(t, sfntypes.ExecutionStatusFailed, out.Status, "execution %s\n%s", arn, e.history(m, arn))
			assert.Equal(t, tc.wantError, aws.ToString(out.Error), "cause: %s", aws.ToString(out.Cause))
			assert.Equal(t, tc.wantTaskErrors, e.taskErrors(t, m, arn), "failed tasks by error name")
			for fn, want := range tc.wantInvokes {
				assert.Equal(t, want, rn.count(fn), "invocations of %s", fn)
			}
			if tc.noRequest {
				assert.ErrorIs(t, resErr, globalsearch.ErrNotFound, "an execution that never claimed the id writes no result")
				assert.Empty(t, e.runItems(t, queryID), "nothing is stored under the id")
				status, _ := getQuery(t, e, namespace, queryID)
				assert.Equal(t, http.StatusNotFound, status)
				return
			}
			require.NoError(t, resErr, "the runs table has a result\n%s", e.history(m, arn))
			// One expiry for the run (docs/contract.md#tables): the
			// state machine's record keeps the result item's.
			exp := e.expiresAt(t, queryID, "result")
			assert.NotEmpty(t, exp, "the recorded failure expires")
			assert.Equal(t, e.expiresAt(t, queryID, "request"), exp, "with its request")
			assert.Equal(t, globalsearch.StatusFailed, res.Status)
			assert.Equal(t, queryID, res.QueryID)
			assert.True(t, strings.HasPrefix(res.Error, strings.TrimPrefix(tc.wantError, "Search.")), "the result names the error first: %q", res.Error)
			for _, want := range tc.wantResultError {
				assert.Contains(t, res.Error, want)
			}
			if tc.wantQuery {
				assert.Equal(t, query, res.Query, "reduce's recording keeps the request")
			}
			if tc.wantSpend {
				rn.mu.Lock()
				made := sum(rn.models)
				rn.mu.Unlock()
				require.Positive(t, made)
				assert.Equal(t, made, res.Diagnostics.ModelCalls, "the failed result counts the run's calls")
				assert.Equal(t, made, res.Diagnostics.Map.ModelCalls)
				assert.Positive(t, res.Diagnostics.InputTokens)
			}
			status, body := getQuery(t, e, namespace, queryID)
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, "failed", body["status"])
			assert.Equal(t, res.Error, body["error"])
		})
	}
}

// events returns every history event of an execution.
func (e *env) events(t *testing.T, m machine, arn string) []sfntypes.HistoryEvent {
	t.Helper()
	var all []sfntypes.HistoryEvent
	p := sfn.NewGetExecutionHistoryPaginator(e.sfn, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background(), m.in)
		require.NoError(t, err)
		all = append(all, page.Events...)
	}
	return all
}

// TestFailureOfAnotherRequest: only the run (or the start) that owns a
// query id's result writes it (docs/contract.md#query-ids). Query q
// completes; then an execution of a different request under the same
// queryId dies in prepare, or is throttled until its Lambda retries are
// spent: each execution fails with its own error, and q's completed
// result is still there, untouched.
func TestFailureOfAnotherRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		name      string
		fault     func(inv invocation) *lambdaReply
		wantError string
	}{
		{"prepare crashes", func(inv invocation) *lambdaReply { return crash() }, "Runtime.ExitError"},
		{"prepare throttled", func(inv invocation) *lambdaReply {
			if inv.Function == "prepare" {
				return throttle()
			}
			return nil
		}, "Lambda.TooManyRequestsException"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			slug := strings.ReplaceAll(tc.name, " ", "-")
			queryID := uniqueName("q-other-" + slug)
			namespace := strings.ToLower(uniqueName("ns-other-" + slug))
			e.loadIndex(t, namespace, 1)
			rn := newRun()
			e.lambda.register(queryID, rn)
			m := e.newStateMachine(t)
			arn := e.start(t, m, queryID, request(queryID, namespace))
			out := e.wait(t, m, arn)
			require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
			before, err := e.runs.Result(context.Background(), queryID)
			require.NoError(t, err)
			require.Equal(t, globalsearch.StatusCompleted, before.Status)

			rn.fault = tc.fault
			other := request(queryID, namespace)
			other["query"] = "a different question under the same id"
			// moto runs one execution per region: the second gets its own.
			m2 := e.newStateMachine(t)
			arn2 := e.start(t, m2, uniqueName("exec-other-"+slug), other)
			out2 := e.wait(t, m2, arn2)
			require.Equal(t, sfntypes.ExecutionStatusFailed, out2.Status, e.history(m2, arn2))
			assert.Equal(t, tc.wantError, aws.ToString(out2.Error), "the execution fails with its own error")

			after, err := e.runs.Result(context.Background(), queryID)
			require.NoError(t, err)
			assert.Equal(t, before, after, "q's completed result is untouched")
		})
	}
}
