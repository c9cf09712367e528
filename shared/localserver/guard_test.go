package localserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostRequest is one request to serve at addr, sent with Host host and
// headers; it returns the status, the body and the response's headers.
func hostRequest(t *testing.T, addr, method, path, host, body string, headers map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Host = host
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data), resp.Header
}

// A page can make a browser send requests to 127.0.0.1, and a hostile name
// that resolves there (DNS rebinding) makes the page same-origin with
// serve, able to read answers too; only a Host that is serve's own address
// or a loopback name is answered (docs/contract.md#serve-security).
func TestServeAnswersOnlyItsOwnHost(t *testing.T) {
	s, addr := startServe(t, nil)
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	asJSON := map[string]string{"Content-Type": "application/json"}
	const search = `{"query":"What are the main themes?","queryId":"q-host"}`
	refused := fmt.Sprintf("serve answers only requests addressed to %s or a loopback name", addr)
	tests := []struct {
		name, method, path, host string
		headers                  map[string]string
		status                   int
		want                     string
	}{
		{"the page by the bound address", http.MethodGet, "/", addr, nil, 200, `data-namespace="sample"`},
		{"the page by localhost", http.MethodGet, "/", "localhost:" + port, nil, 200, `data-namespace="sample"`},
		{"the page by LOCALHOST", http.MethodGet, "/", "LOCALHOST:" + port, nil, 200, `data-namespace="sample"`},
		{"the page by [::1]", http.MethodGet, "/", "[::1]:" + port, nil, 200, `data-namespace="sample"`},
		{"a plan by localhost", http.MethodPost, "/namespaces/sample/plans", "localhost:" + port, asJSON, 200, `"batchCount"`},
		{"the page by another name", http.MethodGet, "/", "evil.example", nil, 403,
			`Host "evil.example" is refused (DNS rebinding protection)`},
		{"a result by another name on the port", http.MethodGet, "/namespaces/sample/queries/q-host", "attacker.example:" + port, nil, 403,
			`Host "attacker.example:` + port + `" is refused`},
		{"a search by another name", http.MethodPost, "/namespaces/sample/queries", "evil.example", asJSON, 403, `Host "evil.example" is refused`},
		{"a plan by another name", http.MethodPost, "/namespaces/sample/plans", "evil.example:" + port, asJSON, 403, refused},
		{"localhost on another port", http.MethodGet, "/", "localhost:1", nil, 403, refused},
		{"localhost with no port", http.MethodGet, "/", "localhost", nil, 403, refused},
		{"another loopback address", http.MethodGet, "/", "127.0.0.2:" + port, nil, 403, refused},
		{"a name ending in a loopback name", http.MethodGet, "/", "evil.localhost:" + port, nil, 403, refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := hostRequest(t, addr, tt.method, tt.path, tt.host, search, tt.headers)
			assert.Equal(t, tt.status, status, body)
			assert.Contains(t, body, tt.want)
		})
	}
	status, _, err := s.starter.Execution(context.Background(), "q-host")
	require.NoError(t, err)
	assert.Empty(t, status, "no search started")
}

// A browser sends a page's POST to another origin without asking the
// server first when it is a "simple request" (a form's types, text/plain);
// only the server's own page, or a client with no Origin, may change
// anything, and only as application/json (docs/contract.md#serve-security).
func TestServeRefusesStateChangesFromOtherPages(t *testing.T) {
	s, addr := startServe(t, nil)
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	const (
		queries = "/namespaces/sample/queries"
		plans   = "/namespaces/sample/plans"
		json    = "application/json"
	)
	otherOrigin := `is another origin (cross-site request forgery protection)`
	notJSON := `only as Content-Type: application/json`
	tests := []struct {
		name, method, path, host, origin, contentType string
		status                                        int
		want                                          string
	}{
		{"a search from another origin", http.MethodPost, queries, addr, "http://evil.example", json, 403, `Origin "http://evil.example" ` + otherOrigin},
		{"a search from another port", http.MethodPost, queries, addr, "http://127.0.0.1:1", json, 403, otherOrigin},
		{"a search from https on the address", http.MethodPost, queries, addr, "https://" + addr, json, 403, otherOrigin},
		{"a search from a sandboxed frame", http.MethodPost, queries, addr, "null", json, 403, `Origin "null" ` + otherOrigin},
		{"a cancel from another origin", http.MethodDelete, queries + "/q-origin", addr, "http://evil.example", json, 403, otherOrigin},
		{"a search as text/plain", http.MethodPost, queries, addr, "", "text/plain;charset=UTF-8", 403, `Content-Type "text/plain;charset=UTF-8" is refused`},
		{"a search as a form", http.MethodPost, queries, addr, "", "application/x-www-form-urlencoded", 403, notJSON},
		{"a search as multipart", http.MethodPost, queries, addr, "", "multipart/form-data; boundary=x", 403, notJSON},
		{"a search with no Content-Type", http.MethodPost, queries, addr, "", "", 403, `Content-Type "" is refused`},
		{"a text/plain search from its own page", http.MethodPost, queries, addr, "http://" + addr, "text/plain", 403, notJSON},
		{"a cancel with no Content-Type", http.MethodDelete, queries + "/q-origin", addr, "", "", 403, notJSON},
		{"a plan from its own page", http.MethodPost, plans, addr, "http://" + addr, json, 200, `"batchCount"`},
		{"a plan from its page by localhost", http.MethodPost, plans, "localhost:" + port, "http://localhost:" + port, json, 200, `"batchCount"`},
		{"a plan with no Origin (curl)", http.MethodPost, plans, addr, "", "application/json; charset=utf-8", 200, `"batchCount"`},
		{"a read from another origin: the browser keeps the answer from the page", http.MethodGet, "/", addr, "http://evil.example", "", 200, "data-namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{}
			if tt.origin != "" {
				headers["Origin"] = tt.origin
			}
			if tt.contentType != "" {
				headers["Content-Type"] = tt.contentType
			}
			status, body, h := hostRequest(t, addr, tt.method, tt.path, tt.host, `{"query":"What are the main themes?","queryId":"q-origin"}`, headers)
			assert.Equal(t, tt.status, status, body)
			assert.Contains(t, body, tt.want)
			assert.Empty(t, h.Get("Access-Control-Allow-Origin"), "no page of another origin may read an answer")
		})
	}
	status, _, err := s.starter.Execution(context.Background(), "q-origin")
	require.NoError(t, err)
	assert.Empty(t, status, "no search started")

	// A preflight is answered as any unknown method, and grants nothing.
	code, _, h := hostRequest(t, addr, http.MethodOptions, queries, addr, "", map[string]string{
		"Origin": "http://evil.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
	assert.Equal(t, http.StatusMethodNotAllowed, code)
	assert.Empty(t, h.Get("Access-Control-Allow-Origin"))
}

// A client that sends its headers and then dribbles its body is cut when
// the request's time is up, well before the body is complete; serve answers
// 408 and closes the connection (docs/contract.md#serve-security).
func TestServeCutsASlowBody(t *testing.T) {
	const bodyBytes = 60 << 10
	_, addr := startServe(t, func(c *Config) { c.ReadTimeout = 300 * time.Millisecond })
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /namespaces/sample/queries HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, bodyBytes)
	require.NoError(t, err)

	// At one byte every 10 ms the body would take over ten minutes.
	var sent atomic.Int64
	stop := make(chan struct{})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for sent.Load() < bodyBytes-1 {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	defer func() {
		close(stop)
		<-wrote
	}()

	// Only a bound on a hung test: the cut comes long before.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err, "serve answers before the body is complete")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "request body did not arrive in time")
	_, err = r.ReadByte()
	assert.Error(t, err, "the connection is closed")
	assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "closed by serve, not by the test's bound: %v", err)
	assert.Less(t, sent.Load(), int64(bodyBytes-1), "cut before the body was complete")
}

// Headers that never end are cut too, by the server's header timeout.
func TestServeCutsSlowHeaders(t *testing.T) {
	_, addr := startServe(t, func(c *Config) { c.HeaderTimeout = 300 * time.Millisecond })
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n", addr)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
	_, err = io.ReadAll(conn)
	assert.NoError(t, err, "serve closed the connection (io.ReadAll's EOF), before the test's bound")
}
