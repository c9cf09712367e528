package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
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
	// execution; RUNNING when status is empty, ABORTED once stopped.
	status, failure string
	// stop, when set, runs before a Stop succeeds; its error fails it.
	stop    func(name string) error
	stopped []string // names and causes of the stops that succeeded
}

func (f *fakeStarter) Stop(_ context.Context, name, cause string) error {
	if f.stop != nil {
		if err := f.stop(name); err != nil {
			return err
		}
	}
	f.stopped = append(f.stopped, name+": "+cause)
	return nil
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
	for _, s := range f.stopped {
		if strings.HasPrefix(s, name+": ") {
			return "ABORTED", "", nil
		}
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
		{name: "malformed JSON", body: `{"query":`, wantStatus: 400, wantMsg: "request is not valid JSON: unexpected end of JSON input in query"},
		{name: "NaN", body: `NaN`, wantStatus: 400, wantMsg: "request is not valid JSON: invalid character 'N'"},
		{name: "empty query", body: `{"query":"  "}`, wantStatus: 400, wantMsg: "query must not be empty"},
		{name: "bad field", body: `{"query":"q","mapTokenBudget":2.5}`, wantStatus: 400, wantMsg: "mapTokenBudget must be a positive integer"},
		{name: "unknown field", body: `{"query":"q","mapBudget":5}`, wantStatus: 400, wantMsg: "unknown request field"},
		{name: "ceiling above the deployment's", body: `{"query":"q","maxModelCalls":501}`, wantStatus: 400,
			wantMsg: "maxModelCalls 501 is above this deployment's ceiling of 500 model calls per run"},
		{name: "field twice", body: `{"query":"q","query":"r"}`, wantStatus: 400, wantMsg: `request field "query" is given more than once`},
		{name: "field twice beside a key", body: `{"query":"q","query":"r"}`, headers: map[string]string{"Idempotency-Key": "k9"}, wantStatus: 400, wantMsg: `request field "query" is given more than once`},
		{name: "trailing brace beside a key", body: `{"query":"q"}}`, headers: map[string]string{"Idempotency-Key": "k9"}, wantStatus: 400, wantMsg: "request must be a single JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			resp := call(t, h, request("POST", "/namespaces/default/queries", tc.body, tc.headers))
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
			assert.Equal(t, "/namespaces/default/queries/"+id, b["location"])
			assert.Equal(t, "/namespaces/default/queries/"+id, resp.Headers["Location"])
			stored, err := s.Request(context.Background(), id)
			require.NoError(t, err)
			// The execution's input is the stored request, seed included,
			// and the execution is named by the query id: prepare parses
			// it to the same request.
			input, err := globalsearch.ParseRequest([]byte(st.inputs[id]), globalsearch.SpecDefaults)
			require.NoError(t, err)
			assert.Equal(t, stored.QueryID, input.QueryID)
			assert.True(t, stored.SameRequest(input))
			assert.Equal(t, stored.ShuffleSeed, input.ShuffleSeed)
		})
	}
}

// TestPostCostCeilingNeedsPrices: a maxCostUsd on a handler without the
// deployment's prices is refused before anything is stored or started,
// with prepare's message (docs/contract.md#cost-ceiling); with prices, the
// same request starts.
func TestPostCostCeilingNeedsPrices(t *testing.T) {
	priced := &globalsearch.Prices{Map: globalsearch.Price{In: 0.001, Out: 0.002}, Reduce: globalsearch.Price{In: 0.003, Out: 0.015}}
	cases := []struct {
		name       string
		prices     *globalsearch.Prices
		body       string
		wantStatus int
		wantMsg    string
	}{
		{"no prices, a ceiling", nil, `{"query":"q","queryId":"c1","maxCostUsd":0.5}`, 400,
			"maxCostUsd 0.5 needs the models' prices, and none are set"},
		{"no prices, no ceiling", nil, `{"query":"q","queryId":"c2"}`, 202, ""},
		{"prices, a ceiling", priced, `{"query":"q","queryId":"c3","maxCostUsd":0.5}`, 202, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			h.Prices = tc.prices
			resp := call(t, h, request("POST", "/namespaces/default/queries", tc.body, nil))
			require.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			b := body(t, resp)
			id, _ := b["queryId"].(string)
			if tc.wantStatus == 202 {
				assert.Equal(t, 1, st.calls)
				_, err := s.Request(context.Background(), id)
				assert.NoError(t, err, "the request is stored")
				return
			}
			assert.Equal(t, "invalid_input", b["error"])
			assert.Contains(t, b["message"], tc.wantMsg)
			assert.Zero(t, st.calls, "nothing may start for a bad request")
			_, err := s.Request(context.Background(), "c1")
			assert.ErrorIs(t, err, globalsearch.ErrNotFound, "nothing is stored for a bad request")
		})
	}
}

// TestPostBodyCap: a body over MaxBodyBytes is 413 before it is parsed
// (a megabyte of nested objects once cost the function its memory), and
// the largest valid request, every character escaped, fits well inside.
func TestPostBodyCap(t *testing.T) {
	// 4,000 code points, each a \u-escaped surrogate pair.
	largest := `{"query":"` + strings.Repeat(`\ud83d\ude00`, globalsearch.MaxQueryRunes) +
		`","responseType":"` + strings.Repeat(`\ud83d\ude00`, globalsearch.MaxResponseTypeRunes) + `","queryId":"` + strings.Repeat("q", 80) + `"}`
	nested := strings.Repeat(`{"a":`, 200_000) + "1" + strings.Repeat("}", 200_000)
	over := `{"query":"q","responseType":"` + strings.Repeat(" ", api.MaxBodyBytes) + `"}`
	tests := []struct {
		name       string
		body       string
		base64     bool
		wantStatus int
		wantMsg    string
	}{
		{name: "largest valid request", body: largest, wantStatus: 202},
		{name: "largest valid request in base64", body: largest, base64: true, wantStatus: 202},
		{name: "at the cap", body: `{"query":"q"` + strings.Repeat(" ", api.MaxBodyBytes-13) + `}`, wantStatus: 202},
		{name: "one byte over", body: `{"query":"q"` + strings.Repeat(" ", api.MaxBodyBytes-12) + `}`, wantStatus: 413,
			wantMsg: "request body is 65537 bytes; the API reads at most 65536 bytes (64 KiB), far more than the largest valid request"},
		{name: "a megabyte of nested objects", body: nested, wantStatus: 413, wantMsg: "request body is 1200001 bytes"},
		{name: "over the cap in base64", body: over, base64: true, wantStatus: 413, wantMsg: "bytes of base64; the API reads at most 65536 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Less(t, len(largest), 50_000)
			h, _, st := newHandler()
			req := request("POST", "/namespaces/default/queries", tc.body, nil)
			if tc.base64 {
				req.Body, req.IsBase64Encoded = base64.StdEncoding.EncodeToString([]byte(tc.body)), true
			}
			resp := call(t, h, req)
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			if tc.wantStatus == 202 {
				assert.Equal(t, 1, st.calls)
				return
			}
			b := body(t, resp)
			assert.Equal(t, "too_large", b["error"])
			assert.Contains(t, b["message"], tc.wantMsg)
			assert.Zero(t, st.calls, "nothing may start for a refused body")
		})
	}
}

func TestPostRepeated(t *testing.T) {
	h, s, st := newHandler()
	req := request("POST", "/namespaces/default/queries", `{"query":"what changed?"}`, map[string]string{"Idempotency-Key": "k1"})
	first := call(t, h, req)
	require.Equal(t, 202, first.StatusCode)

	again := call(t, h, req)
	assert.Equal(t, 200, again.StatusCode)
	assert.Equal(t, "k1", body(t, again)["queryId"])
	assert.Equal(t, "running", body(t, again)["status"])
	assert.Equal(t, 1, st.calls, "a repeated key starts nothing")

	require.NoError(t, s.SaveResult(context.Background(), globalsearch.Result{QueryID: "k1", Namespace: "default", Status: globalsearch.StatusCompleted}, ""))
	done := call(t, h, req)
	assert.Equal(t, 200, done.StatusCode)
	assert.Equal(t, "completed", body(t, done)["status"])

	other := call(t, h, request("POST", "/namespaces/default/queries", `{"query":"something else"}`, map[string]string{"Idempotency-Key": "k1"}))
	assert.Equal(t, 409, other.StatusCode)
	assert.Equal(t, "conflict", body(t, other)["error"])
	assert.Equal(t, "query id k1 already names a different request", body(t, other)["message"])
	assert.Equal(t, 1, st.calls)
}

func TestPostStartFailureHealsOnRetry(t *testing.T) {
	h, _, st := newHandler()
	st.start = func(string) error { return errors.New("sfn unreachable") }
	req := request("POST", "/namespaces/default/queries", `{"query":"q"}`, map[string]string{"Idempotency-Key": "k2"})
	failed := call(t, h, req)
	assert.Equal(t, 500, failed.StatusCode)
	assert.Equal(t, "internal", body(t, failed)["error"])
	assert.NotContains(t, failed.Body, "unreachable", "causes go to the log, not the client")

	st.start = nil
	retried := call(t, h, req)
	assert.Equal(t, 202, retried.StatusCode)
	assert.Contains(t, st.inputs, "k2")

	st.start = func(string) error { return globalsearch.Errorf(globalsearch.KindThrottled, "slow down") }
	busy := call(t, h, request("POST", "/namespaces/default/queries", `{"query":"q"}`, nil))
	assert.Equal(t, 503, busy.StatusCode)
	assert.Equal(t, "2", busy.Headers["Retry-After"])
}

func TestGet(t *testing.T) {
	h, s, _ := newHandler()
	ctx := context.Background()
	_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "running-1", Query: "q", Namespace: "default"}, "")
	require.NoError(t, err)
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "done-1", Namespace: "default", Status: globalsearch.StatusCompleted, Answer: "42"}, ""))
	cases := []struct {
		name       string
		method     string
		path       string
		pathID     string
		wantStatus int
		want       map[string]any
	}{
		{"done", "GET", "/namespaces/default/queries/done-1", "done-1", 200, map[string]any{"queryId": "done-1", "status": "completed", "answer": "42"}},
		{"running", "GET", "/namespaces/default/queries/running-1", "running-1", 200, map[string]any{"queryId": "running-1", "status": "running"}},
		{"unknown", "GET", "/namespaces/default/queries/nope", "nope", 404, map[string]any{"error": "not_found"}},
		{"wrong method on an id", "PUT", "/namespaces/default/queries/done-1", "done-1", 405, map[string]any{"error": "method_not_allowed"}},
		{"wrong method on the collection", "GET", "/namespaces/default/queries", "", 405, map[string]any{"error": "method_not_allowed"}},
		{"bad namespace", "GET", "/namespaces/Not_Valid/queries/done-1", "done-1", 400, map[string]any{"error": "invalid_input"}},
		{"old route", "GET", "/queries/done-1", "done-1", 404, map[string]any{"error": "not_found"}},
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
			_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "default"}, "")
			require.NoError(t, err)
			st.inputs["q-1"] = "{}"
			st.status, st.failure = tc.status, tc.failure
			req := request("GET", "/namespaces/default/queries/q-1", "", nil)
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

// The namespace is the path's (docs/contract.md#entry-points): a body that names another is
// invalid input, and nothing is stored or started.
func TestPostNamespaceFromThePath(t *testing.T) {
	cases := []struct {
		name       string
		path       string
		body       string
		wantStatus int
		wantNS     string
		wantMsg    string
	}{
		{name: "body without namespace", path: "/namespaces/acme/queries", body: `{"query":"q","queryId":"n1"}`, wantStatus: 202, wantNS: "acme"},
		{name: "body with the same namespace", path: "/namespaces/acme/queries", body: `{"query":"q","queryId":"n1","namespace":"acme"}`, wantStatus: 202, wantNS: "acme"},
		{name: "body with another namespace", path: "/namespaces/acme/queries", body: `{"query":"q","queryId":"n1","namespace":"globex"}`, wantStatus: 400,
			wantMsg: `the body's namespace "globex" differs from the path's "acme"`},
		{name: "path namespace no run can have", path: "/namespaces/ACME/queries", body: `{"query":"q","queryId":"n1"}`, wantStatus: 400,
			wantMsg: "the path's namespace must be 1-64 characters of a-z 0-9 - _ ."},
		{name: "the old route", path: "/queries", body: `{"query":"q","queryId":"n1"}`, wantStatus: 404, wantMsg: "no route for POST /queries"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			resp := call(t, h, request("POST", tc.path, tc.body, nil))
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			stored, err := s.Request(context.Background(), "n1")
			if tc.wantStatus != 202 {
				assert.Equal(t, tc.wantMsg, body(t, resp)["message"])
				assert.ErrorIs(t, err, globalsearch.ErrNotFound, "nothing stored")
				assert.Zero(t, st.calls, "nothing started")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantNS, stored.Namespace)
			assert.Equal(t, "/namespaces/"+tc.wantNS+"/queries/n1", resp.Headers["Location"])
		})
	}
}

// A run of another namespace reads exactly as one that does not exist
// (docs/contract.md#state-machine), whether it has a result, a request only, or a result the
// state machine wrote without a namespace.
func TestGetAcrossNamespaces(t *testing.T) {
	h, s, st := newHandler()
	ctx := context.Background()
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "done-a", Namespace: "a", Status: globalsearch.StatusCompleted, Answer: "secret"}, ""))
	_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "running-a", Query: "q", Namespace: "a"}, "")
	require.NoError(t, err)
	st.inputs["running-a"] = "{}"
	// RecordFailure's item holds no namespace; the stored request does.
	_, _, err = s.CreateRequest(ctx, globalsearch.Params{QueryID: "crashed-a", Query: "q", Namespace: "a"}, "")
	require.NoError(t, err)
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "crashed-a", Status: globalsearch.StatusFailed, Error: "Runtime.ExitError"}, ""))
	require.NoError(t, s.SaveResult(ctx, globalsearch.Result{QueryID: "orphan", Status: globalsearch.StatusFailed, Error: "Runtime.ExitError"}, ""))

	cases := []struct {
		name       string
		ns, id     string
		wantStatus int
		wantBody   map[string]any
	}{
		{"own result", "a", "done-a", 200, map[string]any{"status": "completed", "answer": "secret"}},
		{"own running", "a", "running-a", 200, map[string]any{"status": "running"}},
		{"own failure without namespace", "a", "crashed-a", 200, map[string]any{"status": "failed"}},
		{"another's result", "b", "done-a", 404, map[string]any{"error": "not_found", "message": "no query with id done-a in namespace b"}},
		{"another's running", "b", "running-a", 404, map[string]any{"error": "not_found", "message": "no query with id running-a in namespace b"}},
		{"another's failure without namespace", "b", "crashed-a", 404, map[string]any{"error": "not_found", "message": "no query with id crashed-a in namespace b"}},
		{"a result nobody owns", "a", "orphan", 404, map[string]any{"error": "not_found", "message": "no query with id orphan in namespace a"}},
		{"no such id", "b", "nope", 404, map[string]any{"error": "not_found", "message": "no query with id nope in namespace b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := request("GET", "/namespaces/"+tc.ns+"/queries/"+tc.id, "", nil)
			req.PathParameters = map[string]string{"namespace": tc.ns, "id": tc.id}
			resp := call(t, h, req)
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			b := body(t, resp)
			for k, v := range tc.wantBody {
				assert.Equal(t, v, b[k], k)
			}
			if tc.wantStatus == 404 {
				assert.Len(t, b, 2, "a 404 says nothing beyond its error and message")
			}
		})
	}
}

// TestPostLeavesAnUnnamedMapConcurrencyUnnamed: the execution's input names
// a mapConcurrency only where the request did, so a deployment's model
// quota may size the others (docs/contract.md#quota), also when a repeated
// POST starts the execution a first one failed to start.
func TestPostLeavesAnUnnamedMapConcurrencyUnnamed(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		wantNamed bool
	}{
		{"none named", `{"query":"q","queryId":"a"}`, false},
		{"named", `{"query":"q","queryId":"a","mapConcurrency":6}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _, st := newHandler()
			st.start = func(string) error { return errors.New("StartExecution failed") }
			resp := call(t, h, request("POST", "/namespaces/default/queries", tc.body, nil))
			require.Equal(t, 500, resp.StatusCode, resp.Body)
			st.start = nil
			resp = call(t, h, request("POST", "/namespaces/default/queries", tc.body, nil))
			require.Equal(t, 202, resp.StatusCode, resp.Body)
			var input map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(st.inputs["a"]), &input))
			assert.Equal(t, tc.wantNamed, input["mapConcurrency"] != nil, st.inputs["a"])
			p, err := globalsearch.ParseRequest([]byte(st.inputs["a"]), globalsearch.SpecDefaults)
			require.NoError(t, err)
			assert.Equal(t, !tc.wantNamed, p.MapConcurrencyDefault)
		})
	}
}
