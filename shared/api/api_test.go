package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// fakeStarter records starts by name; start, when set, decides the error.
type fakeStarter struct {
	inputs map[string]string
	calls  int
	start  func(name string) error
	// status and failure are what Execution reports of a started
	// execution; RUNNING when status is empty.
	status, failure string
}

func (f *fakeStarter) Start(_ context.Context, name string, input []byte) error {
	f.calls++
	if f.start != nil {
		if err := f.start(name); err != nil {
			return err
		}
	}
	f.inputs[name] = string(input)
	return nil
}

func (f *fakeStarter) Execution(_ context.Context, name string) (string, string, error) {
	if _, ok := f.inputs[name]; !ok {
		return "", "", nil
	}
	if f.status != "" {
		return f.status, f.failure, nil
	}
	return "RUNNING", "", nil
}

func newHandler() (*api.Handler, *memstore.Store, *fakeStarter) {
	s := memstore.New()
	st := &fakeStarter{inputs: map[string]string{}}
	return &api.Handler{Runs: s, Starter: st, Defaults: globalsearch.SpecDefaults}, s, st
}

func request(method, path, body string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	r := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: path, Body: body, Headers: headers}
	r.RequestContext.HTTP.Method = method
	r.RequestContext.HTTP.Path = path
	return r
}

// call runs the handler through aws-lambda-go's JSON path, as Lambda does.
func call(t *testing.T, h *api.Handler, req events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
	t.Helper()
	payload, err := json.Marshal(req)
	require.NoError(t, err)
	out, err := lambda.NewHandler(h.Handle).Invoke(context.Background(), payload)
	require.NoError(t, err)
	var resp events.APIGatewayV2HTTPResponse
	require.NoError(t, json.Unmarshal(out, &resp))
	return resp
}

func body(t *testing.T, resp events.APIGatewayV2HTTPResponse) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &m), resp.Body)
	return m
}

func TestPost(t *testing.T) {
	cases := []struct {
		name       string
		body       string
		headers    map[string]string
		wantStatus int
		wantID     string
		wantMsg    string
	}{
		{name: "generated id", body: `{"query":"what changed?"}`, wantStatus: 202},
		{name: "id from body", body: `{"query":"what changed?","queryId":"from-body"}`, wantStatus: 202, wantID: "from-body"},
		{name: "id from header", body: `{"query":"what changed?"}`, headers: map[string]string{"idempotency-key": "from-key"}, wantStatus: 202, wantID: "from-key"},
		{name: "header and body disagree", body: `{"query":"q","queryId":"a"}`, headers: map[string]string{"Idempotency-Key": "b"}, wantStatus: 400, wantMsg: "differ"},
		{name: "bad header", body: `{"query":"q"}`, headers: map[string]string{"Idempotency-Key": "has space"}, wantStatus: 400, wantMsg: "queryId must be 1-80 characters"},
		{name: "malformed JSON", body: `{"query":`, wantStatus: 400, wantMsg: "request must be a JSON object"},
		{name: "empty query", body: `{"query":"  "}`, wantStatus: 400, wantMsg: "query must not be empty"},
		{name: "bad field", body: `{"query":"q","mapTokenBudget":2.5}`, wantStatus: 400, wantMsg: "mapTokenBudget must be a positive integer"},
		{name: "unknown field", body: `{"query":"q","mapBudget":5}`, wantStatus: 400, wantMsg: "unknown request field"},
		{name: "field twice", body: `{"query":"q","query":"r"}`, wantStatus: 400, wantMsg: `request field "query" is given more than once`},
		{name: "field twice beside a key", body: `{"query":"q","query":"r"}`, headers: map[string]string{"Idempotency-Key": "k9"}, wantStatus: 400, wantMsg: `request field "query" is given more than once`},
		{name: "trailing brace beside a key", body: `{"query":"q"}}`, headers: map[string]string{"Idempotency-Key": "k9"}, wantStatus: 400, wantMsg: "request must be a single JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			resp := call(t, h, request("POST", "/queries", tc.body, tc.headers))
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			assert.Equal(t, "application/json", resp.Headers["Content-Type"])
			b := body(t, resp)
			if tc.wantStatus != 202 {
				assert.Equal(t, "invalid_input", b["error"])
				assert.Contains(t, b["message"], tc.wantMsg)
				assert.Zero(t, st.calls, "nothing may start for a bad request")
				return
			}
			id, _ := b["queryId"].(string)
			require.NotEmpty(t, id)
			if tc.wantID != "" {
				assert.Equal(t, tc.wantID, id)
			}
			assert.Equal(t, "running", b["status"])
			assert.Equal(t, "/queries/"+id, b["location"])
			assert.Equal(t, "/queries/"+id, resp.Headers["Location"])
			stored, err := s.Request(context.Background(), id)
			require.NoError(t, err)
			// The execution's input is the stored request, seed included,
			// and the execution is named by the query id.
			var input globalsearch.Params
			require.NoError(t, json.Unmarshal([]byte(st.inputs[id]), &input))
			assert.Equal(t, stored, input)
		})
	}
}

func TestPostRepeated(t *testing.T) {
	h, s, st := newHandler()
	req := request("POST", "/queries", `{"query":"what changed?"}`, map[string]string{"Idempotency-Key": "k1"})
	first := call(t, h, req)
	require.Equal(t, 202, first.StatusCode)

	again := call(t, h, req)
	assert.Equal(t, 200, again.StatusCode)
	assert.Equal(t, "k1", body(t, again)["queryId"])
	assert.Equal(t, "running", body(t, again)["status"])
	assert.Equal(t, 1, st.calls, "a repeated key starts nothing")

	require.NoError(t, s.SaveResult(context.Background(), globalsearch.Result{QueryID: "k1", Status: globalsearch.StatusCompleted}, ""))
	done := call(t, h, req)
	assert.Equal(t, 200, done.StatusCode)
	assert.Equal(t, "completed", body(t, done)["status"])

	other := call(t, h, request("POST", "/queries", `{"query":"something else"}`, map[string]string{"Idempotency-Key": "k1"}))
	assert.Equal(t, 409, other.StatusCode)
	assert.Equal(t, 1, st.calls)
}

func TestPostStartFailureHealsOnRetry(t *testing.T) {
	h, _, st := newHandler()
	st.start = func(string) error { return errors.New("sfn unreachable") }
	req := request("POST", "/queries", `{"query":"q"}`, map[string]string{"Idempotency-Key": "k2"})
	failed := call(t, h, req)
	assert.Equal(t, 500, failed.StatusCode)
	assert.Equal(t, "internal", body(t, failed)["error"])
	assert.NotContains(t, failed.Body, "unreachable", "causes go to the log, not the client")

	st.start = nil
	retried := call(t, h, req)
	assert.Equal(t, 202, retried.StatusCode)
	assert.Contains(t, st.inputs, "k2")

	st.start = func(string) error { return globalsearch.Errorf(globalsearch.KindThrottled, "slow down") }
	busy := call(t, h, request("POST", "/queries", `{"query":"q"}`, nil))
	assert.Equal(t, 503, busy.StatusCode)
	assert.Equal(t, "2", busy.Headers["Retry-After"])
}

func TestGet(t *testing.T) {
	h, s, _ := newHandler()
	ctx := context.Background()
	_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "running-1", Query: "q"})
	require.NoError(t, err)
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "done-1", Status: globalsearch.StatusCompleted, Answer: "42"}, ""))
	cases := []struct {
		name       string
		method     string
		path       string
		pathID     string
		wantStatus int
		want       map[string]any
	}{
		{"done", "GET", "/queries/done-1", "done-1", 200, map[string]any{"queryId": "done-1", "status": "completed", "answer": "42"}},
		{"running", "GET", "/queries/running-1", "running-1", 200, map[string]any{"queryId": "running-1", "status": "running"}},
		{"unknown", "GET", "/queries/nope", "nope", 404, map[string]any{"error": "not_found"}},
		{"wrong method on an id", "DELETE", "/queries/done-1", "done-1", 405, map[string]any{"error": "method_not_allowed"}},
		{"wrong method on the collection", "GET", "/queries", "", 405, map[string]any{"error": "method_not_allowed"}},
		{"unknown route", "GET", "/other", "", 404, map[string]any{"error": "not_found"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := request(tc.method, tc.path, "", nil)
			if tc.pathID != "" {
				req.PathParameters = map[string]string{"id": tc.pathID}
			}
			resp := call(t, h, req)
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			b := body(t, resp)
			for k, v := range tc.want {
				assert.Equal(t, v, b[k], k)
			}
			if tc.wantStatus == 405 {
				assert.NotEmpty(t, resp.Headers["Allow"])
			}
		})
	}
}

func TestGetExecutionThatEndedWithoutAResult(t *testing.T) {
	cases := []struct {
		name, status, failure string
		want                  map[string]any
	}{
		{"still running", "RUNNING", "", map[string]any{"status": "running"}},
		{"timed out", "TIMED_OUT", "States.Timeout: Map timed out",
			map[string]any{"status": "failed", "error": "the execution ended TIMED_OUT before it saved a result: States.Timeout: Map timed out"}},
		{"aborted", "ABORTED", "", map[string]any{"status": "failed", "error": "the execution ended ABORTED before it saved a result"}},
		{"failed", "FAILED", "Lambda.ServiceException: gone", map[string]any{"status": "failed", "error": "the execution ended FAILED before it saved a result: Lambda.ServiceException: gone"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			ctx := context.Background()
			_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q-1", Query: "q"})
			require.NoError(t, err)
			st.inputs["q-1"] = "{}"
			st.status, st.failure = tc.status, tc.failure
			req := request("GET", "/queries/q-1", "", nil)
			req.PathParameters = map[string]string{"id": "q-1"}
			resp := call(t, h, req)
			assert.Equal(t, 200, resp.StatusCode, resp.Body)
			b := body(t, resp)
			for k, v := range tc.want {
				assert.Equal(t, v, b[k], k)
			}
			_, err = s.Result(ctx, "q-1")
			assert.ErrorIs(t, err, globalsearch.ErrNotFound, "a GET reports, it writes nothing")
		})
	}
}
