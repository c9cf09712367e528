package localserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestServeRunsUntilItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := New(ctx, configOver(t, sampleFile(t), nil))
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	resp, err := http.Get("http://" + s.Addr().String() + "/")
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
	_, err = http.Get("http://" + s.Addr().String() + "/")
	assert.Error(t, err, "the listener is closed")
}

func TestServeAnswersAsTheAPIHandler(t *testing.T) {
	a, srv := localServer(t, nil)
	b, _ := localServer(t, nil)
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

func TestServeLocalRoutesRefuseBadRequests(t *testing.T) {
	_, srv := localServer(t, nil)
	tests := []struct {
		name, method, path, body string
		status                   int
		wantErr                  string
	}{
		{"plans takes POST only", http.MethodGet, "/namespaces/sample/plans", "", 405, "method_not_allowed"},
		{"plans: bad namespace", http.MethodPost, "/namespaces/Bad!/plans", `{"query":"q"}`, 400, "invalid_input"},
		{"plans: invalid request", http.MethodPost, "/namespaces/sample/plans", `{"query":""}`, 400, "query must not be empty"},
		{"plans: another namespace in the body", http.MethodPost, "/namespaces/sample/plans", `{"query":"q","namespace":"x"}`, 400, `differs from the path's`},
		{"plans: a body over the cap", http.MethodPost, "/namespaces/sample/plans", `{"query":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`, 413, "the API reads at most"},
		{"communities takes GET only", http.MethodPost, "/namespaces/sample/communities/c0-economy", "", 405, "method_not_allowed"},
		{"communities: bad namespace", http.MethodGet, "/namespaces/Bad!/communities/c0-economy", "", 400, "invalid_input"},
		{"communities: unknown community", http.MethodGet, "/namespaces/sample/communities/nope", "", 404, "no community nope in namespace sample"},
		{"communities: unknown query", http.MethodGet, "/namespaces/sample/communities/c0-economy?queryId=none", "", 404, "no query with id none in namespace sample"},
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
	_, srv := localServer(t, func(c *Config) { c.Defaults.MaxModelCalls = 3 })
	got := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?"}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, got.status)
	assert.Contains(t, got.body, `"error":"plan_too_large"`)
	assert.Contains(t, got.body, "but this run may make at most 3")

}

func TestServePlansRouteReadsBase64Bodies(t *testing.T) {
	l, _ := localServer(t, nil)
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
	s := New(context.Background(), configOver(t, sampleFile(t), nil))
	require.NoError(t, s.Listen())
	require.NoError(t, s.listener.Close())
	err := s.Serve(context.Background())
	require.Error(t, err)
	assert.ErrorIs(t, err, net.ErrClosed)
}

func TestServeCommunityRouteShowsTheCitationsSources(t *testing.T) {
	l, srv := localServer(t, nil)
	post := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?","shuffleSeed":7}`, nil)
	require.Equal(t, http.StatusAccepted, post.status)
	var accepted api.Accepted
	require.NoError(t, json.Unmarshal([]byte(post.body), &accepted))
	<-l.starter.Done(accepted.QueryID)
	res, err := l.runs.Result(context.Background(), accepted.QueryID)
	require.NoError(t, err)
	require.NotEmpty(t, res.Citations)
	cited := res.Citations[0]
	index := sampleFile(t)

	got := overHTTP(t, srv, http.MethodGet, "/namespaces/sample/communities/"+cited.CommunityID+"?queryId="+accepted.QueryID, "", nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	var c Community
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
	var bare Community
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

type heldModel struct{ entered chan struct{} }

func (m heldModel) Complete(ctx context.Context, _ globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	select {
	case m.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return globalsearch.ModelResponse{}, context.Cause(ctx)
}

func heldServer(t *testing.T, id string) (*Server, *httptest.Server) {
	t.Helper()
	model := heldModel{entered: make(chan struct{}, 1)}
	l, srv := localServer(t, func(c *Config) { c.Engine.Model = model })
	post := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?","shuffleSeed":7}`,
		map[string]string{api.IdempotencyKeyHeader: id})
	require.Equal(t, http.StatusAccepted, post.status, post.body)
	<-model.entered
	return l, srv
}

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

func TestServeReadsABodyAsTheAPI(t *testing.T) {
	l, srv := localServer(t, nil)
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

func TestServeAddrRule(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:0", "localhost:8080", "[::1]:8080", "192.0.2.7:8080", "[2001:db8::1]:80"} {
		assert.NoError(t, CheckAddr(addr), addr)
	}
	for addr, want := range map[string]string{
		":8080": "listens on every interface", "0.0.0.0:8080": "listens on every interface", "[::]:8080": "listens on every interface",
		"example.com:8080": "must be an IP address or localhost", "127.0.0.1": "must be host:port", "127.0.0.1:": "must be host:port",
	} {
		assert.ErrorContains(t, CheckAddr(addr), want, addr)
	}
	assert.True(t, IsLoopback("127.0.0.2:80"))
	assert.True(t, IsLoopback("localhost:80"))
	assert.False(t, IsLoopback("192.0.2.7:80"))
}

// A finished query's GET carries the coverage line `run` prints and the
// answer's marks as the engine reads them (docs/contract.md#result-reading).
func TestServeResultCarriesItsReadings(t *testing.T) {
	l, srv := localServer(t, nil)
	post := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?","shuffleSeed":7}`, nil)
	require.Equal(t, http.StatusAccepted, post.status, post.body)
	var accepted api.Accepted
	require.NoError(t, json.Unmarshal([]byte(post.body), &accepted))
	<-l.starter.Done(accepted.QueryID)
	res, err := l.runs.Result(context.Background(), accepted.QueryID)
	require.NoError(t, err)
	got := overHTTP(t, srv, http.MethodGet, accepted.Location, "", nil)
	var reply struct {
		CoverageLine  string                  `json:"coverageLine"`
		CitationMarks []globalsearch.MarkSpan `json:"citationMarks"`
	}
	require.NoError(t, json.Unmarshal([]byte(got.body), &reply))
	assert.Equal(t, res.Diagnostics.Coverage.LineWithReduceHint(), reply.CoverageLine)
	assert.Equal(t, globalsearch.MarkSpans(res.Answer), reply.CitationMarks)
	assert.NotEmpty(t, reply.CitationMarks)
}
