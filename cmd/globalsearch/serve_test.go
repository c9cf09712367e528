package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/localhttp"
)

var serveSampleIndex = filepath.Join("..", "..", "testdata", "sample-index.json")

func TestServeFlagErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no index", nil, "is required"},
		{"index and table", []string{"--index", serveSampleIndex, "--table", "t"}, "exclude each other"},
		{"every interface, no host", []string{"--index", serveSampleIndex, "--addr", ":8080"}, "listens on every interface"},
		{"every interface, IPv4", []string{"--index", serveSampleIndex, "--addr", "0.0.0.0:8080"}, "listens on every interface"},
		{"every interface, IPv6", []string{"--index", serveSampleIndex, "--addr", "[::]:8080"}, "listens on every interface"},
		{"a host name", []string{"--index", serveSampleIndex, "--addr", "example.com:8080"}, "must be an IP address or localhost"},
		{"no port", []string{"--index", serveSampleIndex, "--addr", "127.0.0.1"}, "must be host:port"},
		{"empty port", []string{"--index", serveSampleIndex, "--addr", "127.0.0.1:"}, "must be host:port"},
		{"bad ceiling", []string{"--index", serveSampleIndex, "--max-model-calls", "0"}, "--max-model-calls must be a positive number"},
		{"bad map-text cap", []string{"--index", serveSampleIndex, "--max-map-text-mb", "-1"}, "--max-map-text-mb must be a positive number"},
		{"cache and no-cache", []string{"--index", serveSampleIndex, "--cache", "d", "--no-cache"}, "--cache needs a directory and excludes --no-cache"},
		{"stray argument", []string{"--index", serveSampleIndex, "extra"}, `unexpected argument "extra"`},
		{"unknown flag", []string{"--index", serveSampleIndex, "--query", "q"}, "flag provided but not defined: -query"},
		{"bad model", []string{"--index", serveSampleIndex, "--model", "gpt"}, "model"},
		{"missing index file", []string{"--index", filepath.Join(t.TempDir(), "none.json")}, "read index file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, append(append([]string{"serve"}, noCacheUnlessSet(tt.args)...), tt.args...))
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut.String(), tt.wantErr)
		})
	}
}

// noCacheUnlessSet keeps tests out of the user's cache directory.
func noCacheUnlessSet(args []string) []string {
	for _, a := range args {
		if strings.HasPrefix(a, "--cache") || a == "--no-cache" {
			return nil
		}
	}
	return []string{"--no-cache"}
}

func TestServeAddrRule(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:0", "localhost:8080", "[::1]:8080", "192.0.2.7:8080", "[2001:db8::1]:80"} {
		assert.NoError(t, checkServeAddr(addr), addr)
	}
	assert.True(t, isLoopback("127.0.0.2"))
	assert.True(t, isLoopback("localhost"))
	assert.False(t, isLoopback("192.0.2.7"))
}

func TestServeCannotBindABusyAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	env, _, _ := testEnv("")
	_, err = openServe(context.Background(), env, []string{"--index", serveSampleIndex, "--no-cache", "--addr", busy.Addr().String()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "address already in use")
}

func TestServeRunsUntilItsContextEnds(t *testing.T) {
	env, _, errOut := testEnv("")
	ctx, cancel := context.WithCancel(context.Background())
	s, err := openServe(ctx, env, []string{"--index", serveSampleIndex, "--no-cache", "--addr", "127.0.0.1:0"})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.run(ctx) }()
	resp, err := http.Get("http://" + s.listener.Addr().String() + "/")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), `data-namespace="sample"`)
	csp := resp.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "default-src 'none'")
	nonce := regexp.MustCompile(`script-src 'nonce-([A-Z2-7]+)'`).FindStringSubmatch(csp)
	require.Len(t, nonce, 2, csp)
	assert.Contains(t, string(page), `<script nonce="`+nonce[1]+`">`, "the page's script carries this response's nonce")
	cancel()
	assert.NoError(t, <-done)
	_, err = http.Get("http://" + s.listener.Addr().String() + "/")
	assert.Error(t, err, "the listener is closed")
	assert.Empty(t, errOut.String())
}

func TestServeCommandPrintsWhereItListens(t *testing.T) {
	env, _, errOut := testEnv("")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve, print, and stop at once
	require.NoError(t, serveCommand(ctx, env, []string{"--index", serveSampleIndex, "--no-cache", "--addr", "127.0.0.1:0"}))
	assert.Regexp(t, `^globalsearch serve: http://127\.0\.0\.1:\d+/ \(index namespace "sample"\)`, errOut.String())
}

// localServer is serve's routes over the sample index with the offline
// model, on an httptest server; extra are more serve flags.
func localServer(t *testing.T, extra ...string) (*localAPI, *httptest.Server) {
	t.Helper()
	return localServerOn(t, serveSampleIndex, extra...)
}

// localServerOn is localServer over the index file path.
func localServerOn(t *testing.T, path string, extra ...string) (*localAPI, *httptest.Server) {
	t.Helper()
	env, _, _ := testEnv("")
	o := &serveOptions{}
	set, err := parseFlags(newServeFlagSet(o, env), append([]string{"--index", path, "--no-cache"}, extra...))
	require.NoError(t, err)
	o.search.set = set
	l, err := newLocalAPI(t.Context(), env, &o.search)
	require.NoError(t, err)
	t.Cleanup(l.starter.Close)
	return l, guardedServer(t, l.routes())
}

// guardedServer serves h behind serve's guard on an httptest server, as
// serve's run does on its listener.
func guardedServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = localhttp.New(h, srv.Listener.Addr(), "")
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// gatewayEvent is a request as API Gateway hands it to the function
// (events/api-*.json): lowercased headers, the route's path parameters.
func gatewayEvent(method, path, body string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	req := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: path, Body: body, Headers: map[string]string{}}
	for k, v := range headers {
		req.Headers[strings.ToLower(k)] = v
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) >= 3 && segs[0] == "namespaces" {
		req.PathParameters = map[string]string{"namespace": segs[1]}
		if len(segs) == 4 {
			req.PathParameters["id"] = segs[3]
		}
	}
	req.RequestContext.HTTP.Method = method
	req.RequestContext.HTTP.Path = path
	return req
}

type exchange struct {
	status   int
	body     string
	location string
	allow    string
}

func overHTTP(t *testing.T, srv *httptest.Server, method, path, body string, headers map[string]string) exchange {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if method != http.MethodGet {
		// As the page sends it: serve refuses a state-changing request of
		// any other type.
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return exchange{resp.StatusCode, string(data), resp.Header.Get("Location"), resp.Header.Get("Allow")}
}

func direct(t *testing.T, l *localAPI, method, path, body string, headers map[string]string) exchange {
	t.Helper()
	resp, err := l.handler.Handle(context.Background(), gatewayEvent(method, path, body, headers))
	require.NoError(t, err)
	return exchange{resp.StatusCode, resp.Body, resp.Headers["Location"], resp.Headers["Allow"]}
}

// serve answers every API route as api.Handler answers API Gateway's event
// for the same request. A fresh twin answers the first POST, since a
// second POST of the same key is a repeat.
func TestServeAnswersAsTheAPIHandler(t *testing.T) {
	a, srv := localServer(t)
	b, _ := localServer(t)
	key := map[string]string{api.IdempotencyKeyHeader: "q-serve-1"}
	body := `{"query":"What are the main themes across Veloria's development over the decade?"}`
	first := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", body, key)
	assert.Equal(t, direct(t, b, http.MethodPost, "/namespaces/sample/queries", body, key), first)
	assert.Equal(t, http.StatusAccepted, first.status)
	<-a.starter.Done("q-serve-1")

	cases := []struct {
		name, method, path, body string
		headers                  map[string]string
	}{
		{"GET a finished query", http.MethodGet, "/namespaces/sample/queries/q-serve-1", "", nil},
		{"POST again: a repeat", http.MethodPost, "/namespaces/sample/queries", body, key},
		{"POST the same key, another request", http.MethodPost, "/namespaces/sample/queries", `{"query":"other"}`, key},
		{"POST invalid input", http.MethodPost, "/namespaces/sample/queries", `{"query":""}`, nil},
		{"POST another namespace in the body", http.MethodPost, "/namespaces/sample/queries", `{"query":"q","namespace":"x"}`, nil},
		{"POST a body over the cap", http.MethodPost, "/namespaces/sample/queries", `{"query":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`, nil},
		{"GET an unknown id", http.MethodGet, "/namespaces/sample/queries/none", "", nil},
		{"GET from another namespace", http.MethodGet, "/namespaces/other/queries/q-serve-1", "", nil},
		{"GET a bad namespace", http.MethodGet, "/namespaces/Bad!/queries/q-serve-1", "", nil},
		{"DELETE a finished query", http.MethodDelete, "/namespaces/sample/queries/q-serve-1", "", nil},
		{"DELETE an unknown id", http.MethodDelete, "/namespaces/sample/queries/none", "", nil},
		{"PUT the queries route", http.MethodPut, "/namespaces/sample/queries", "", nil},
		{"an unknown route", http.MethodGet, "/namespaces/sample", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := overHTTP(t, srv, c.method, c.path, c.body, c.headers)
			want := direct(t, a, c.method, c.path, c.body, c.headers)
			assert.Equal(t, want, got)
		})
	}
}

func TestServePlansRouteIsWhatPlanPrints(t *testing.T) {
	_, srv := localServer(t)
	env, out, _ := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"plan", "--json", "--index", serveSampleIndex, "--query", "What are the main themes?", "--seed", "7"}))
	got := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?","shuffleSeed":7}`, nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.JSONEq(t, out.String(), got.body)
	assert.NotContains(t, got.body, "costUsd", "no cost without prices")

	_, priced := localServer(t, "--price-in", "0.003", "--price-out", "0.015")
	got = overHTTP(t, priced, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?"}`, nil)
	var plan struct {
		CostUSD *float64 `json:"costUsd"`
	}
	require.NoError(t, json.Unmarshal([]byte(got.body), &plan))
	require.NotNil(t, plan.CostUSD)
	assert.Greater(t, *plan.CostUSD, 0.0)
}

func TestServeLocalRoutesRefuseBadRequests(t *testing.T) {
	_, srv := localServer(t)
	tests := []struct {
		name, method, path, body string
		status                   int
		wantErr                  string
	}{
		{"plans takes POST only", http.MethodGet, "/namespaces/sample/plans", "", 405, "method_not_allowed"},
		{"plans: bad namespace", http.MethodPost, "/namespaces/Bad!/plans", `{"query":"q"}`, 400, "invalid_input"},
		{"plans: invalid request", http.MethodPost, "/namespaces/sample/plans", `{"query":""}`, 400, "query must not be empty"},
		{"plans: another namespace in the body", http.MethodPost, "/namespaces/sample/plans", `{"query":"q","namespace":"x"}`, 400, `differs from the path's`},
		{"plans: a namespace the file does not hold", http.MethodPost, "/namespaces/other/plans", `{"query":"q"}`, 400, `holds namespace \"sample\"`},
		{"plans: a body over the cap", http.MethodPost, "/namespaces/sample/plans", `{"query":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`, 413, "the API reads at most"},
		{"communities takes GET only", http.MethodPost, "/namespaces/sample/communities/c0-economy", "", 405, "method_not_allowed"},
		{"communities: bad namespace", http.MethodGet, "/namespaces/Bad!/communities/c0-economy", "", 400, "invalid_input"},
		{"communities: unknown community", http.MethodGet, "/namespaces/sample/communities/nope", "", 404, "no community nope in namespace sample"},
		{"communities: unknown query", http.MethodGet, "/namespaces/sample/communities/c0-economy?queryId=none", "", 404, "no query with id none in namespace sample"},
		{"communities: a namespace the file does not hold", http.MethodGet, "/namespaces/other/communities/c0-economy", "", 400, `holds namespace \"sample\"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := overHTTP(t, srv, tt.method, tt.path, tt.body, nil)
			assert.Equal(t, tt.status, got.status)
			assert.Contains(t, got.body, tt.wantErr)
		})
	}
}

func TestServePlansRouteSaysWhyAPlanCannotRun(t *testing.T) {
	_, srv := localServer(t, "--max-model-calls", "3")
	got := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?"}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, got.status)
	assert.Contains(t, got.body, `"error":"plan_too_large"`)
	assert.Contains(t, got.body, "but this run may make at most 3")

	f := smallIndex()
	f.Records.Summaries[0].ParentCommunityID = "fish" // a cycle: root -> fish -> root
	_, corrupt := localServerOn(t, writeIndex(t, f))
	got = overHTTP(t, corrupt, http.MethodPost, "/namespaces/tiny/plans", `{"query":"q"}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, got.status)
	assert.Contains(t, got.body, `"error":"corrupt_index"`)
}

func TestServePlansRouteReadsBase64Bodies(t *testing.T) {
	l, _ := localServer(t)
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"encoded request", base64.StdEncoding.EncodeToString([]byte(`{"query":"What are the main themes?"}`)), 200, `"batchCount"`},
		{"not base64", "!!", 400, "request body is not valid base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := gatewayEvent(http.MethodPost, "/namespaces/sample/plans", tt.body, nil)
			req.IsBase64Encoded = true
			resp, err := l.plans(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Contains(t, resp.Body, tt.want)
		})
	}
}

func TestServeRunEndsWhenTheListenerFails(t *testing.T) {
	env, _, _ := testEnv("")
	s, err := openServe(context.Background(), env, []string{"--index", serveSampleIndex, "--no-cache", "--addr", "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, s.listener.Close())
	err = s.run(context.Background())
	require.Error(t, err)
	assert.ErrorIs(t, err, net.ErrClosed)
}

func TestServeCommunityRouteShowsTheCitationsSources(t *testing.T) {
	l, srv := localServer(t)
	post := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?","shuffleSeed":7}`, nil)
	require.Equal(t, http.StatusAccepted, post.status)
	var accepted api.Accepted
	require.NoError(t, json.Unmarshal([]byte(post.body), &accepted))
	<-l.starter.Done(accepted.QueryID)
	res, err := l.runs.Result(context.Background(), accepted.QueryID)
	require.NoError(t, err)
	require.NotEmpty(t, res.Citations)
	cited := res.Citations[0]
	index, err := indexfile.Load(serveSampleIndex)
	require.NoError(t, err)

	got := overHTTP(t, srv, http.MethodGet, "/namespaces/sample/communities/"+cited.CommunityID+"?queryId="+accepted.QueryID, "", nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	var c serveCommunity
	require.NoError(t, json.Unmarshal([]byte(got.body), &c))
	for _, s := range index.Records.Summaries {
		if s.ID == cited.CommunityID {
			assert.Equal(t, s, c.Summary)
		}
	}
	assert.Equal(t, cited.ClaimIDs, claimIDs(c.Claims))
	assert.Equal(t, cited.ChunkIDs, chunkIDs(c.Excerpts))
	assert.Equal(t, accepted.QueryID, c.QueryID)

	// Without a query: the summary alone.
	got = overHTTP(t, srv, http.MethodGet, "/namespaces/sample/communities/"+cited.CommunityID, "", nil)
	require.Equal(t, http.StatusOK, got.status)
	var bare serveCommunity
	require.NoError(t, json.Unmarshal([]byte(got.body), &bare))
	assert.Equal(t, c.Summary, bare.Summary)
	assert.Empty(t, bare.Claims)
	assert.Empty(t, bare.Excerpts)
}

func claimIDs(cs []globalsearch.Claim) []string {
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

func chunkIDs(cs []globalsearch.Chunk) []string {
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// heldModel holds every call until its context ends; entered hears of the
// first.
type heldModel struct{ entered chan struct{} }

func (m heldModel) Complete(ctx context.Context, _ globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	select {
	case m.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return globalsearch.ModelResponse{}, context.Cause(ctx)
}

// heldServer is serve's routes over the sample index with a model that
// never answers, and a query started and waiting in its map stage.
func heldServer(t *testing.T, id string) (*localAPI, *httptest.Server) {
	t.Helper()
	flags, _ := localServer(t)
	e := *flags.engine
	model := heldModel{entered: make(chan struct{}, 1)}
	e.Model, e.Cache = model, nil
	l := wireLocalAPI(t.Context(), &e, flags.defaults, flags.model)
	t.Cleanup(l.starter.Close)
	srv := guardedServer(t, l.routes())
	post := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?","shuffleSeed":7}`,
		map[string]string{api.IdempotencyKeyHeader: id})
	require.Equal(t, http.StatusAccepted, post.status, post.body)
	<-model.entered
	return l, srv
}

// A running query answers GET and DELETE over serve as the API handler
// answers them on a twin in the same state; whatever DELETE answers, the
// status GET reads next is the same on both.
func TestServeAnswersARunningQueryAsTheAPIHandler(t *testing.T) {
	_, srv := heldServer(t, "q-held")
	b, _ := heldServer(t, "q-held")
	path := "/namespaces/sample/queries/q-held"
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		got := untimed(t, overHTTP(t, srv, method, path, "", nil))
		want := untimed(t, direct(t, b, method, path, "", nil))
		assert.Equal(t, want, got, method)
	}
	var viaHTTP, viaHandler struct {
		Status globalsearch.Status `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(overHTTP(t, srv, http.MethodGet, path, "", nil).body), &viaHTTP))
	require.NoError(t, json.Unmarshal([]byte(direct(t, b, http.MethodGet, path, "", nil).body), &viaHandler))
	assert.Equal(t, viaHandler.Status, viaHTTP.Status)
	assert.NotEmpty(t, viaHTTP.Status)
}

// untimed is x with the times a result records (diagnostics.startedAt,
// finishedAt and timeline) left out: two twins run at two instants.
func untimed(t *testing.T, x exchange) exchange {
	t.Helper()
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(x.body), &body), x.body)
	if d, ok := body["diagnostics"].(map[string]any); ok {
		delete(d, "startedAt")
		delete(d, "finishedAt")
		delete(d, "timeline")
	}
	data, err := json.Marshal(body)
	require.NoError(t, err)
	x.body = string(data)
	return x
}

// serve's plans route reads a body as the API's POST does (one reader,
// api.ReadRequest): the same status and message for the same body, one
// over the cap (413 before it is decoded) or one naming another namespace
// or query id (docs/contract.md#body-cap).
func TestServeReadsABodyAsTheAPI(t *testing.T) {
	l, srv := localServer(t)
	over := `{"query":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`
	key := map[string]string{api.IdempotencyKeyHeader: "q-key"}
	tests := []struct {
		name, body string
		encoded    bool
		headers    map[string]string
		status     int
		want       string
	}{
		{"over the cap", over, false, nil, 413, "request body is 65548 bytes; the API reads at most 65536"},
		{"over the cap in base64", base64.StdEncoding.EncodeToString([]byte(over)), true, nil, 413, "bytes of base64"},
		{"over the cap once decoded", base64.StdEncoding.EncodeToString([]byte(over[:api.MaxBodyBytes+1])), true, nil, 413, "request body is 65537 bytes;"},
		{"not base64", "!!", true, nil, 400, "request body is not valid base64"},
		{"another namespace in the body", `{"query":"q","namespace":"x"}`, false, nil, 400, `the body's namespace \"x\" differs from the path's \"sample\"`},
		{"a queryId the key differs from", `{"query":"q","queryId":"q-body"}`, false, key, 400, "queryId and the Idempotency-Key header differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := gatewayEvent(http.MethodPost, "/namespaces/sample/plans", tt.body, tt.headers)
			query := gatewayEvent(http.MethodPost, "/namespaces/sample/queries", tt.body, tt.headers)
			plan.IsBase64Encoded, query.IsBase64Encoded = tt.encoded, tt.encoded
			got, err := l.plans(context.Background(), plan)
			require.NoError(t, err)
			want, err := l.handler.Handle(context.Background(), query)
			require.NoError(t, err)
			assert.Equal(t, tt.status, got.StatusCode, got.Body)
			assert.Contains(t, got.Body, tt.want)
			assert.Equal(t, want.StatusCode, got.StatusCode)
			assert.Equal(t, want.Body, got.Body)
		})
	}
	plan := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/plans", over, nil)
	query := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", over, nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, plan.status)
	assert.Equal(t, query.body, plan.body, "over HTTP too")
}
