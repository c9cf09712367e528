package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func noCacheUnlessSet(args []string) []string {
	for _, a := range args {
		if strings.HasPrefix(a, "--cache") || a == "--no-cache" {
			return nil
		}
	}
	return []string{"--no-cache"}
}

func TestServeCannotBindABusyAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	env, _, _ := testEnv("")
	_, _, err = openServe(context.Background(), env, []string{"--index", serveSampleIndex, "--no-cache", "--addr", busy.Addr().String()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "address already in use")
}

func TestServeCommandPrintsWhereItListens(t *testing.T) {
	env, _, errOut := testEnv("")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve, print, and stop at once
	require.NoError(t, serveCommand(ctx, env, []string{"--index", serveSampleIndex, "--no-cache", "--addr", "127.0.0.1:0"}))
	assert.Regexp(t, `^globalsearch serve: http://127\.0\.0\.1:\d+/ \(index namespace "sample"\)`, errOut.String())
}

func TestServePlansRouteIsWhatPlanPrints(t *testing.T) {
	srv := localServer(t)
	env, out, _ := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"plan", "--json", "--index", serveSampleIndex, "--query", "What are the main themes?", "--seed", "7"}))
	got := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?","shuffleSeed":7}`, nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.JSONEq(t, out.String(), got.body)
	assert.NotContains(t, got.body, "costUsd", "no cost without prices")

	priced := localServer(t, "--price-in", "0.003", "--price-out", "0.015")
	got = overHTTP(t, priced, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?"}`, nil)
	var plan struct {
		CostUSD *float64 `json:"costUsd"`
	}
	require.NoError(t, json.Unmarshal([]byte(got.body), &plan))
	require.NotNil(t, plan.CostUSD)
	assert.Greater(t, *plan.CostUSD, 0.0)
}

// localServer runs serve as the command wires it (openServe, then Serve)
// over the sample index on a free loopback port until the test ends, and
// returns its URL; extra are more serve flags.
func localServer(t *testing.T, extra ...string) string {
	t.Helper()
	return localServerOn(t, serveSampleIndex, extra...)
}

// localServerOn is localServer over the index file path.
func localServerOn(t *testing.T, path string, extra ...string) string {
	t.Helper()
	env, _, _ := testEnv("")
	ctx, cancel := context.WithCancel(context.Background())
	s, _, err := openServe(ctx, env, append([]string{"--index", path, "--no-cache", "--addr", "127.0.0.1:0"}, extra...))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + s.Addr().String()
}

type exchange struct {
	status int
	body   string
}

// overHTTP sends one request to the server at url as the page does.
func overHTTP(t *testing.T, url, method, path, body string, headers map[string]string) exchange {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	require.NoError(t, err)
	if method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return exchange{resp.StatusCode, string(data)}
}

// serve's routes read the index file it was given: another namespace is
// the file's own refusal, and a corrupt index the plans route's 422.
func TestServeReadsItsIndexFile(t *testing.T) {
	srv := localServer(t)
	for _, path := range []string{"/namespaces/other/plans", "/namespaces/other/communities/c0-economy"} {
		method := http.MethodGet
		if strings.HasSuffix(path, "plans") {
			method = http.MethodPost
		}
		got := overHTTP(t, srv, method, path, `{"query":"q"}`, nil)
		assert.Equal(t, http.StatusBadRequest, got.status, path)
		assert.Contains(t, got.body, `holds namespace \"sample\"`, path)
	}
	limited := localServer(t, "--max-model-calls", "3")
	got := overHTTP(t, limited, http.MethodPost, "/namespaces/sample/plans", `{"query":"What are the main themes?"}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, got.status)
	assert.Contains(t, got.body, "but this run may make at most 3")

	f := smallIndex()
	f.Records.Summaries[0].ParentCommunityID = "fish" // a cycle: root -> fish -> root
	corrupt := localServerOn(t, writeIndex(t, f))
	got = overHTTP(t, corrupt, http.MethodPost, "/namespaces/tiny/plans", `{"query":"q"}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, got.status)
	assert.Contains(t, got.body, `"error":"corrupt_index"`)
}
