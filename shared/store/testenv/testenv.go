// Package testenv starts the DynamoDB emulators the tests run against: the
// in-process minidyn server (always available) and moto_server (when it is
// on PATH; required under CI=true), and gives the static credentials every
// client of an emulated or fake AWS endpoint signs with. It is imported by
// _test files only.
// Every helper is safe to call from parallel tests: each call starts its
// own emulator on its own loopback port and stops it at t.Cleanup.
package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/truora/minidyn/server"
)

// Minidyn starts an in-process minidyn server and returns a client
// pointed at it.
func Minidyn(t testing.TB) *dynamodb.Client {
	t.Helper()
	client, _ := MinidynServer(t)
	return client
}

// MinidynServer is Minidyn that also returns the server, for tests that use
// its failure injection (EmulateFailure, EmulateUnprocessedItems).
func MinidynServer(t testing.TB) (*dynamodb.Client, *server.Server) {
	t.Helper()
	endpoint, srv := MinidynEndpoint(t)
	return DynamoDBClient(t, endpoint), srv
}

// MinidynEndpoint starts a minidyn server and returns its URL, for code
// that builds its own client (the CLI, through AWS_ENDPOINT_URL_DYNAMODB).
func MinidynEndpoint(t testing.TB) (string, *server.Server) {
	t.Helper()
	srv := server.NewServer()
	hs := httptest.NewServer(shim{srv})
	t.Cleanup(hs.Close)
	return hs.URL, srv
}

// MinidynHandler returns a minidyn server as an http.Handler, with the
// adaptations of MinidynEndpoint, for callers that serve requests in
// process without a socket (shared/store/limits, inside a testing/synctest
// bubble, where network waits would stop simulated time).
func MinidynHandler() (http.Handler, *server.Server) {
	srv := server.NewServer()
	return shim{srv}, srv
}

// shim adapts minidyn to what the SDK and store.CreateTables expect: it
// answers the TTL operations minidyn does not implement (minidyn never
// expires items; tests of expiry move the store's clock instead), fills in
// the table status it leaves out, and signs every answer with the
// X-Amz-Crc32 header DynamoDB sends, which the SDK checks.
type shim struct{ next http.Handler }

func (h shim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	rec := httptest.NewRecorder()
	switch {
	case strings.HasSuffix(target, ".UpdateTimeToLive"):
		var in struct {
			TimeToLiveSpecification json.RawMessage
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(rec).Encode(map[string]json.RawMessage{"TimeToLiveSpecification": in.TimeToLiveSpecification})
	case strings.HasSuffix(target, ".DescribeTimeToLive"):
		rec.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(rec, `{"TimeToLiveDescription":{"TimeToLiveStatus":"ENABLED","AttributeName":"expiresAt"}}`)
	case strings.HasSuffix(target, ".DescribeTable"):
		h.next.ServeHTTP(rec, r)
		// The SDK's TableExistsWaiter waits for ACTIVE; a table minidyn
		// knows is ready.
		var body map[string]map[string]any
		if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &body) == nil && body["Table"] != nil {
			if status, _ := body["Table"]["TableStatus"].(string); status == "" {
				body["Table"]["TableStatus"] = "ACTIVE"
			}
			rec.Body.Reset()
			_ = json.NewEncoder(rec.Body).Encode(body)
		}
	default:
		h.next.ServeHTTP(rec, emptyCollectionsAsNull(r))
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(rec.Body.Bytes())), 10))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// emptyCollectionsAsNull works around minidyn v0.8.2 losing empty lists and
// maps: its wire type drops `"L": []` (omitempty) and answers `{}`, which
// the SDK cannot decode. An empty collection is sent as NULL instead, which
// reads back as a nil slice or map; the conformance suite treats nil and
// empty alike, as every caller does.
func emptyCollectionsAsNull(r *http.Request) *http.Request {
	body, err := io.ReadAll(r.Body)
	if err != nil || !bytes.Contains(body, []byte(`"L":[]`)) && !bytes.Contains(body, []byte(`"M":{}`)) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		return r
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		if fixed, err := json.Marshal(nullEmpty(v)); err == nil {
			body = fixed
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return r
}

func nullEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 1 {
			if l, ok := v["L"].([]any); ok && len(l) == 0 {
				return map[string]any{"NULL": true}
			}
			if m, ok := v["M"].(map[string]any); ok && len(m) == 0 {
				return map[string]any{"NULL": true}
			}
		}
		for k, e := range v {
			v[k] = nullEmpty(e)
		}
	case []any:
		for i, e := range v {
			v[i] = nullEmpty(e)
		}
	}
	return v
}

// DynamoDBClient returns a client for an emulator at endpoint, with static
// credentials and region us-east-1 so that no real AWS configuration on
// the machine is read.
func DynamoDBClient(t testing.TB, endpoint string) *dynamodb.Client {
	t.Helper()
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  StaticCredentials(),
	})
}

// MotoOptions configures a moto_server.
type MotoOptions struct {
	// Env holds extra environment variables (KEY=value) for the server,
	// e.g. MOTO_PORT for Lambda-backed features.
	Env []string
	// StartTimeout bounds the wait for the server to answer (default 30s).
	StartTimeout time.Duration
}

// StopByPID ends cmd, started in a process group of its own, and whatever
// it started when the test ends: SIGTERM to the group, then SIGKILL after
// 5 s. The channel receives cmd's exit status once it has exited, so a
// caller can notice a server that died while it waits for it.
func StopByPID(t testing.TB, cmd *exec.Cmd) <-chan error {
	exited := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return exited
}

// Moto starts moto_server on a free loopback port and returns its endpoint
// URL. Without moto_server on PATH the test is skipped, or fails under
// CI=true, where the emulator suite is required.
func Moto(t testing.TB, opts MotoOptions) string {
	t.Helper()
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("moto_server is not on PATH and CI=true requires the moto tests: pip install 'moto[server]'")
		}
		t.Skip("moto_server is not on PATH; install it (pip install 'moto[server]') to run the moto tests")
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("find a free port for moto_server: %v", err)
	}
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), opts.Env...)
	// Its own process group, so cleanup stops the workers it forks too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &OutputBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start moto_server: %v", err)
	}
	exited := StopByPID(t, cmd)

	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitReady(endpoint, timeout, exited); err != nil {
		t.Fatalf("moto_server on %s: %v\n%s", endpoint, err, lastLines(out.String(), 20))
	}
	return endpoint
}

func waitReady(endpoint string, timeout time.Duration, exited <-chan error) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		resp, err := client.Get(endpoint + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("exited before answering: %v", err)
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return errors.New("no answer within " + timeout.String())
		}
	}
}

// OutputBuffer collects a child process's output, which exec copies from
// another goroutine while a test may read it.
type OutputBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *OutputBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *OutputBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// FreeAddr returns a loopback address with a port that was free a moment
// ago, for a child process to listen on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
