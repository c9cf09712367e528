package localserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/localhttp"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// The shared fixtures of indexfiletest, by the names these tests use.
var (
	smallIndex = indexfiletest.Small
)

const sampleIndex = "../../testdata/sample-index.json"

// sampleFile is the sample index the servers of these tests serve.
func sampleFile(t *testing.T) indexfile.File {
	t.Helper()
	f, err := indexfile.Load(sampleIndex)
	require.NoError(t, err)
	return f
}

// configOver is a server's config over f in memory with the offline
// model and the spec's defaults; adjust, when set, changes it.
func configOver(t *testing.T, f indexfile.File, adjust func(*Config)) Config {
	t.Helper()
	idx := memstore.New()
	require.NoError(t, idx.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = f.Namespace
	// Named as serve opens it (provider.Open), so the page names it.
	model := globalsearch.TimeoutModel{Model: offline.New(), Name: "offline"}
	cfg := Config{Engine: &globalsearch.Engine{Index: idx, Model: model}, Defaults: defaults, Addr: "127.0.0.1:0"}
	if adjust != nil {
		adjust(&cfg)
	}
	return cfg
}

// localServer is the server over the sample index, its routes behind the
// guard on an httptest server.
func localServer(t *testing.T, adjust func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	return localServerOver(t, sampleFile(t), adjust)
}

// localServerOver is localServer over f.
func localServerOver(t *testing.T, f indexfile.File, adjust func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	s := New(t.Context(), configOver(t, f, adjust))
	t.Cleanup(s.Close)
	return s, guardedServer(t, s.routes())
}

// guardedServer serves h behind serve's guard on an httptest server, as
// Serve does on its listener.
func guardedServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = localhttp.New(h, srv.Listener.Addr(), "")
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// startServe runs the server over the sample index as serve does (Listen,
// then Serve) on a free loopback port until the test ends; adjust, when
// set, changes its config (a test's shorter timeouts).
func startServe(t *testing.T, adjust func(*Config)) (*Server, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := New(ctx, configOver(t, sampleFile(t), adjust))
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s, s.Addr().String()
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

func direct(t *testing.T, s *Server, method, path, body string, headers map[string]string) exchange {
	t.Helper()
	resp, err := s.handler.Handle(context.Background(), gatewayEvent(method, path, body, headers))
	require.NoError(t, err)
	return exchange{resp.StatusCode, resp.Body, resp.Headers["Location"], resp.Headers["Allow"]}
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
