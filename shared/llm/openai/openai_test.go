package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// reply is one canned answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string
	hang   bool
}

func completion(text, finish string, in, out int) reply {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.1",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return reply{status: http.StatusOK, body: string(b)}
}

type received struct {
	path string
	auth string
	body map[string]any
}

// fakeServer answers replies in order and repeats the last one.
type fakeServer struct {
	mu      sync.Mutex
	replies []reply
	calls   []received
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	f.mu.Lock()
	f.calls = append(f.calls, received{path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body})
	rep := f.replies[min(len(f.calls), len(f.replies))-1]
	f.mu.Unlock()
	if rep.hang {
		<-r.Context().Done()
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (f *fakeServer) snapshot() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.calls...)
}

// recordSleeps replaces the Model's sleep so tests observe the waits without
// spending them.
func recordSleeps(m *Model) *[]time.Duration {
	var waits []time.Duration
	m.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return &waits
}

func TestComplete(t *testing.T) {
	rateLimited := func(after string) reply {
		return reply{status: 429, header: map[string]string{"Retry-After": after}, body: `{"error":{"message":"rate limited"}}`}
	}
	cases := []struct {
		name      string
		opts      []Option
		replies   []reply
		stage     globalsearch.Stage
		timeout   time.Duration
		realSleep bool
		wantCalls int
		wantWaits []time.Duration // nil: do not check
		wantResp  globalsearch.ModelResponse
		wantKind  globalsearch.Kind // KindInternal: no error
		wantInErr []string
		wantCtx   bool
		wantAuth  string
		jsonCalls []bool // response_format sent on call i; nil: on every call
	}{
		{
			name:      "success with usage",
			replies:   []reply{completion(`{"answer":"a","usefulness":40}`, "stop", 90, 12)},
			wantCalls: 1, wantWaits: []time.Duration{},
			wantResp: globalsearch.ModelResponse{Text: `{"answer":"a","usefulness":40}`, InputTokens: 90, OutputTokens: 12, StopReason: "stop"},
		},
		{
			name:      "api key sent when set",
			opts:      []Option{WithAPIKey("sk-test")},
			replies:   []reply{completion("{}", "stop", 1, 1)},
			wantCalls: 1, wantAuth: "Bearer sk-test",
			wantResp: globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:      "429 with Retry-After then success",
			replies:   []reply{rateLimited("2"), completion("{}", "stop", 1, 1)},
			wantCalls: 2, wantWaits: []time.Duration{2 * time.Second},
			wantResp: globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:      "Retry-After beyond the cap is capped",
			replies:   []reply{rateLimited("600"), completion("{}", "stop", 1, 1)},
			wantCalls: 2, wantWaits: []time.Duration{DefaultMaxRetryAfter},
			wantResp: globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:      "429 forever",
			replies:   []reply{rateLimited("1")},
			wantCalls: 3, wantWaits: []time.Duration{time.Second, time.Second},
			wantKind: globalsearch.KindThrottled, wantInErr: []string{"HTTP 429", "3 attempt(s)", "rate limited"},
		},
		{
			name:    "Retry-After past the deadline gives up at once",
			replies: []reply{rateLimited("30")}, timeout: time.Second,
			wantCalls: 1, wantWaits: []time.Duration{},
			wantKind: globalsearch.KindThrottled, wantInErr: []string{"HTTP 429"},
		},
		{
			name:      "5xx then success",
			replies:   []reply{{status: 503, body: "loading model"}, completion("{}", "stop", 1, 1)},
			wantCalls: 2,
			wantResp:  globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:      "5xx forever",
			replies:   []reply{{status: 500, body: "boom"}},
			wantCalls: 3,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"HTTP 500", "3 attempt(s)", "boom"},
		},
		{
			name:      "malformed body",
			replies:   []reply{{status: 200, body: "<html>proxy error</html>"}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"malformed chat completion", "<html>proxy error</html>"},
		},
		{
			name:      "body over the read cap",
			replies:   []reply{{status: 200, body: `{"choices":[{"message":{"content":"` + strings.Repeat("x", maxResponseBytes) + `"},"finish_reason":"stop"}]}`}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"answered HTTP 200 with a body over the 16 MiB read cap", `{"choices":[{"message":{"content":"xxx`},
		},
		{
			name:      "no choices",
			replies:   []reply{{status: 200, body: `{"choices":[]}`}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"no choices"},
		},
		{
			name:      "other 4xx is not retried",
			replies:   []reply{{status: 404, body: `{"error":"model 'llama9' not found"}`}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"HTTP 404", "llama9"},
		},
		{
			name:      "finish_reason length in map",
			replies:   []reply{completion(`{"answer":"cu`, "length", 50, 64)},
			wantCalls: 1,
			wantResp:  globalsearch.ModelResponse{Text: `{"answer":"cu`, InputTokens: 50, OutputTokens: 64, StopReason: "length"},
			wantKind:  globalsearch.KindModelOutput, wantInErr: []string{"mapOutputReserve", "too small"},
		},
		{
			name: "finish_reason length in reduce", stage: globalsearch.StageReduce,
			replies:   []reply{completion(`{"answer":"cu`, "length", 50, 64)},
			wantCalls: 1,
			wantResp:  globalsearch.ModelResponse{Text: `{"answer":"cu`, InputTokens: 50, OutputTokens: 64, StopReason: "length"},
			wantKind:  globalsearch.KindModelOutput, wantInErr: []string{"reduceOutputReserve"},
		},
		{
			name:      "response_format rejected: resent without it",
			replies:   []reply{{status: 400, body: `{"error":"response_format is not supported"}`}, completion("{}", "stop", 1, 1)},
			wantCalls: 2, jsonCalls: []bool{true, false},
			wantResp: globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:      "JSON mode off",
			opts:      []Option{WithoutJSONMode()},
			replies:   []reply{completion("{}", "stop", 1, 1)},
			wantCalls: 1, jsonCalls: []bool{false},
			wantResp: globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:    "context deadline",
			replies: []reply{{hang: true}}, timeout: 100 * time.Millisecond, realSleep: true,
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantCtx: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeServer{replies: tc.replies}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			m, err := New(srv.URL+"/v1/", "llama3.1", tc.opts...)
			require.NoError(t, err)
			waits := &[]time.Duration{}
			if !tc.realSleep {
				waits = recordSleeps(m)
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			stage := tc.stage
			if stage == "" {
				stage = globalsearch.StageMap
			}

			resp, err := m.Complete(ctx, globalsearch.ModelRequest{Stage: stage, Prompt: "Question: q", MaxTokens: 64})

			calls := fake.snapshot()
			assert.Len(t, calls, tc.wantCalls, "calls the server received")
			if tc.wantKind == globalsearch.KindInternal {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "kind of %v", err)
				for _, s := range tc.wantInErr {
					assert.Contains(t, err.Error(), s)
				}
				assert.Equal(t, tc.wantCtx, errors.Is(err, context.DeadlineExceeded), "errors.Is DeadlineExceeded: %v", err)
			}
			assert.Equal(t, tc.wantResp, resp)
			if tc.wantWaits != nil {
				assert.Equal(t, tc.wantWaits, append([]time.Duration{}, *waits...))
			}
			for i, c := range calls {
				assert.Equal(t, "/v1/chat/completions", c.path)
				assert.Equal(t, tc.wantAuth, c.auth, "Authorization header")
				wantBody := map[string]any{
					"model": "llama3.1",
					"messages": []any{
						map[string]any{"role": "system", "content": globalsearch.SystemPrompt},
						map[string]any{"role": "user", "content": "Question: q"},
					},
					"max_tokens":  float64(64),
					"temperature": float64(0),
					"stream":      false,
				}
				if tc.jsonCalls == nil || tc.jsonCalls[i] {
					wantBody["response_format"] = map[string]any{"type": "json_object"}
				}
				assert.Equal(t, wantBody, c.body, "body of call %d", i+1)
			}
		})
	}
}

func TestResponseFormatFallbackIsRemembered(t *testing.T) {
	fake := &fakeServer{replies: []reply{
		{status: 400, body: `{"error":{"message":"unknown field: response_format"}}`},
		completion("{}", "stop", 1, 1),
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	m, err := New(srv.URL+"/v1", "llama3.1")
	require.NoError(t, err)

	for range 2 {
		_, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
		require.NoError(t, err)
	}

	calls := fake.snapshot()
	require.Len(t, calls, 3, "one rejected call, its resend, then the second call")
	assert.Contains(t, calls[0].body, "response_format")
	assert.NotContains(t, calls[1].body, "response_format")
	assert.NotContains(t, calls[2].body, "response_format")
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := retryAfter(tc.in, now)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestBackoffIsBounded(t *testing.T) {
	m, err := New("http://localhost:1/v1", "m", WithBackoff(10*time.Millisecond, 40*time.Millisecond))
	require.NoError(t, err)
	for attempt := 1; attempt <= 70; attempt++ {
		d := m.backoff(attempt)
		assert.GreaterOrEqual(t, d, time.Duration(0))
		assert.LessOrEqual(t, d, 40*time.Millisecond)
	}
}

func TestInvalid(t *testing.T) {
	_, err := New("", "m")
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	m, err := New("http://localhost:1/v1", "m")
	require.NoError(t, err)
	_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, MaxTokens: -1})
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "mapOutputReserve")
}

// TestZeroReserveSendsNoLimit: an output reserve of 0 is a call with no
// max_tokens, so the server's default applies (docs/contract.md#budgets), never a refusal.
func TestZeroReserveSendsNoLimit(t *testing.T) {
	tests := []struct {
		name      string
		maxTokens int
		reply     reply
		wantLimit any // the max_tokens sent, nil for none
		wantErr   string
	}{
		{"zero sends none", 0, completion(`{"answer":"a","usefulness":5}`, "stop", 5, 2), nil, ""},
		{"positive is sent", 64, completion(`{"answer":"a","usefulness":5}`, "stop", 5, 2), float64(64), ""},
		{"cut off by the server's own limit", 0, completion(`{"answer":"a`, "length", 5, 4096), nil, "stopped at its own output limit (no max_tokens was sent, mapOutputReserve is 0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeServer{replies: []reply{tc.reply}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			m, err := New(srv.URL+"/v1", "llama3.1")
			require.NoError(t, err)
			_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: tc.maxTokens})
			calls := fake.snapshot()
			require.Len(t, calls, 1, "the call is made")
			limit, sent := calls[0].body["max_tokens"]
			assert.Equal(t, tc.wantLimit != nil, sent)
			assert.Equal(t, tc.wantLimit, limit)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err))
				return
			}
			assert.NoError(t, err)
		})
	}
}
