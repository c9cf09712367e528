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

// fast keeps the SDK's waits between attempts short: the tests check which
// attempts are made, never how long they wait.
var fast = WithMaxRetryDelay(20 * time.Millisecond)

// wantFormat is the response_format a call of stage sends in format f; nil
// for none.
func wantFormat(t *testing.T, stage globalsearch.Stage, f Format) any {
	switch f {
	case FormatSchema:
		s := globalsearch.StageOutputSchema(stage)
		var schema any
		require.NoError(t, json.Unmarshal([]byte(s.JSON()), &schema))
		return map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": s.Name, "description": s.Description, "strict": true, "schema": schema,
		}}
	case FormatJSON:
		return map[string]any{"type": "json_object"}
	}
	return nil
}

func TestComplete(t *testing.T) {
	rateLimited := func(after string) reply {
		return reply{status: 429, header: map[string]string{"Retry-After": after}, body: `{"error":{"message":"rate limited"}}`}
	}
	ok := globalsearch.ModelResponse{Text: "{}", InputTokens: 1, OutputTokens: 1, StopReason: "stop"}
	cases := []struct {
		name      string
		opts      []Option
		replies   []reply
		stage     globalsearch.Stage
		timeout   time.Duration
		wantCalls int
		wantResp  globalsearch.ModelResponse
		wantKind  globalsearch.Kind // KindInternal: no error
		wantInErr []string
		wantCtx   bool
		wantAuth  string
		formats   []Format // response_format of call i; nil: the schema on every call
	}{
		{
			name:      "success with usage",
			replies:   []reply{completion(`{"answer":"a","usefulness":40}`, "stop", 90, 12)},
			wantCalls: 1,
			wantResp:  globalsearch.ModelResponse{Text: `{"answer":"a","usefulness":40}`, InputTokens: 90, OutputTokens: 12, StopReason: "stop"},
		},
		{
			name:      "api key sent when set",
			opts:      []Option{WithAPIKey("sk-test")},
			replies:   []reply{completion("{}", "stop", 1, 1)},
			wantCalls: 1, wantAuth: "Bearer sk-test", wantResp: ok,
		},
		{
			name:      "429 with Retry-After then success",
			replies:   []reply{rateLimited("0.005"), completion("{}", "stop", 1, 1)},
			wantCalls: 2, wantResp: ok,
		},
		{
			// The SDK does not retry before the server allows: the caller's
			// own retry takes over.
			name:      "Retry-After beyond the longest wait is not waited for",
			replies:   []reply{rateLimited("600"), completion("{}", "stop", 1, 1)},
			wantCalls: 1,
			wantKind:  globalsearch.KindThrottled, wantInErr: []string{"HTTP 429", "1 attempt(s)", "rate limited"},
		},
		{
			name:      "429 forever",
			replies:   []reply{rateLimited("0.001")},
			wantCalls: 3,
			wantKind:  globalsearch.KindThrottled, wantInErr: []string{"HTTP 429", "3 attempt(s)", "rate limited"},
		},
		{
			name:    "Retry-After past the deadline gives up at once",
			opts:    []Option{WithMaxRetryDelay(time.Minute)},
			replies: []reply{rateLimited("30")}, timeout: time.Second,
			wantCalls: 1,
			wantKind:  globalsearch.KindThrottled, wantInErr: []string{"HTTP 429"},
		},
		{
			name:      "5xx then success",
			replies:   []reply{{status: 503, body: "loading model"}, completion("{}", "stop", 1, 1)},
			wantCalls: 2, wantResp: ok,
		},
		{
			name:      "5xx forever",
			replies:   []reply{{status: 500, body: "boom"}},
			wantCalls: 3,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"HTTP 500", "3 attempt(s)", "boom"},
		},
		{
			name:      "one attempt when asked",
			opts:      []Option{WithMaxAttempts(1)},
			replies:   []reply{{status: 500, body: "boom"}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"HTTP 500", "1 attempt(s)"},
		},
		{
			name:      "malformed body",
			replies:   []reply{{status: 200, body: "<html>proxy error</html>"}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"malformed chat completion", "<html>proxy error</html>"},
		},
		{
			// docs/contract.md#reply-cap: 64 tokens allow 64 KiB + 64*64
			// bytes, and a 13 MB reply of ids nobody asked for is refused.
			name:      "reply over the output reserve's cap is not retried",
			replies:   []reply{completion(strings.Repeat(`"c1234",`, 13<<20/8), "stop", 1, 1)},
			wantCalls: 1,
			wantKind:  globalsearch.KindModelOutput, wantInErr: []string{"model llama3.1 replied with over 69632 bytes, more than an answer within 64 tokens needs"},
		},
		{
			name:      "reply within the output reserve's cap",
			replies:   []reply{completion(strings.Repeat("x", 60<<10), "stop", 1, 1)},
			wantCalls: 1, wantResp: globalsearch.ModelResponse{Text: strings.Repeat("x", 60<<10), InputTokens: 1, OutputTokens: 1, StopReason: "stop"},
		},
		{
			name:      "error body over the read cap is not retried",
			replies:   []reply{{status: 503, body: strings.Repeat("y", maxResponseBytes+1)}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"answered HTTP 503 with a body over the 16 MiB read cap"},
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
			name:      "a 400 about something else is no format fallback",
			replies:   []reply{{status: 400, body: `{"error":{"message":"prompt too long","param":"messages"}}`}},
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantInErr: []string{"HTTP 400", "prompt too long"},
		},
		{
			name:      "finish_reason length in map",
			replies:   []reply{completion(`{"answer":"cu`, "length", 50, 64)},
			wantCalls: 1,
			wantResp:  globalsearch.ModelResponse{Text: `{"answer":"cu`, InputTokens: 50, OutputTokens: 64, StopReason: "length"},
			wantKind:  globalsearch.KindModelOutput, wantInErr: []string{"max_tokens 64", "mapOutputReserve", "too small"},
		},
		{
			name: "finish_reason length in reduce", stage: globalsearch.StageReduce,
			replies:   []reply{completion(`{"answer":"cu`, "length", 50, 64)},
			wantCalls: 1,
			wantResp:  globalsearch.ModelResponse{Text: `{"answer":"cu`, InputTokens: 50, OutputTokens: 64, StopReason: "length"},
			wantKind:  globalsearch.KindModelOutput, wantInErr: []string{"reduceOutputReserve"},
		},
		{
			name:      "json_schema refused: resent as json_object",
			replies:   []reply{{status: 400, body: `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","param":"response_format"}}`}, completion("{}", "stop", 1, 1)},
			wantCalls: 2, formats: []Format{FormatSchema, FormatJSON}, wantResp: ok,
		},
		{
			name: "every format refused: resent without one",
			replies: []reply{
				{status: 400, body: `{"error":"json_schema is not supported"}`},
				{status: 400, body: `{"error":"response_format is not supported"}`},
				completion("{}", "stop", 1, 1),
			},
			wantCalls: 3, formats: []Format{FormatSchema, FormatJSON, FormatText}, wantResp: ok,
		},
		{
			name:      "a refusal without a format left fails",
			opts:      []Option{WithFormat(FormatText)},
			replies:   []reply{{status: 400, body: `{"error":"response_format is required"}`}},
			wantCalls: 1, formats: []Format{FormatText},
			wantKind: globalsearch.KindModel, wantInErr: []string{"HTTP 400"},
		},
		{
			name:      "JSON object mode",
			opts:      []Option{WithFormat(FormatJSON)},
			replies:   []reply{completion("{}", "stop", 1, 1)},
			wantCalls: 1, formats: []Format{FormatJSON}, wantResp: ok,
		},
		{
			name:    "context deadline",
			replies: []reply{{hang: true}}, timeout: 100 * time.Millisecond,
			wantCalls: 1,
			wantKind:  globalsearch.KindModel, wantCtx: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeServer{replies: tc.replies}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			m, err := New(srv.URL+"/v1/", "llama3.1", append([]Option{fast}, tc.opts...)...)
			require.NoError(t, err)
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
				}
				format := FormatSchema
				if tc.formats != nil {
					format = tc.formats[i]
				}
				if rf := wantFormat(t, stage, format); rf != nil {
					wantBody["response_format"] = rf
				}
				assert.Equal(t, wantBody, c.body, "body of call %d", i+1)
			}
		})
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	m, err := New(url+"/v1", "llama3.1", fast)
	require.NoError(t, err)
	_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindModel, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "cannot reach "+url+"/v1/chat/completions after 3 attempt(s) (is the server running?)")
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
	require.Equal(t, FormatSchema, m.Format())
	assert.Empty(t, m.Notes(), "nothing to say before a fallback")

	for range 2 {
		_, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
		require.NoError(t, err)
	}

	calls := fake.snapshot()
	require.Len(t, calls, 3, "one refused call, its resend, then the second call")
	assert.Equal(t, wantFormat(t, globalsearch.StageMap, FormatSchema), calls[0].body["response_format"])
	assert.Equal(t, wantFormat(t, globalsearch.StageMap, FormatJSON), calls[1].body["response_format"])
	assert.Equal(t, wantFormat(t, globalsearch.StageMap, FormatJSON), calls[2].body["response_format"], "the fallback is remembered")
	assert.Equal(t, FormatJSON, m.Format())
	notes := m.Notes()
	require.Len(t, notes, 1, "the fallback is noted once (docs/contract.md#structured-output)")
	assert.Contains(t, notes[0], "model llama3.1 at "+srv.URL+"/v1/chat/completions refused response_format json_schema: its calls asked for json_object instead")
	wrapped := globalsearch.TimeoutModel{Model: m, Name: "openai:llama3.1", Timeout: time.Minute}
	assert.Equal(t, notes, wrapped.Notes(), "a timeout's wrapper passes the note on")
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
		{"0.25", 250 * time.Millisecond, true},
		{"NaN", 0, false},
		{"Inf", 0, false},
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
