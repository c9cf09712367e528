package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// reasoningServer refuses what OpenAI's reasoning models refuse, with the
// API's own 400s: a temperature other than the default and max_tokens.
type reasoningServer struct {
	mu    sync.Mutex
	calls []map[string]any
}

func (s *reasoningServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	s.mu.Lock()
	s.calls = append(s.calls, body)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	refuse := func(msg, param, code string) {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": msg, "type": "invalid_request_error", "param": param, "code": code}})
	}
	if t, ok := body["temperature"]; ok && t != float64(1) {
		refuse("Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "temperature", "unsupported_value")
		return
	}
	if _, ok := body["max_tokens"]; ok {
		refuse("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
		return
	}
	_, _ = io.WriteString(w, completion(`{"answer":"a","usefulness":40}`, "stop", 90, 300).body)
}

func TestReasoningModels(t *testing.T) {
	cases := []struct {
		name, model string
		opts        []Option
		maxTokens   int
		wantErr     string // "": the call succeeds
		wantLimit   any    // max_completion_tokens sent; nil for none
	}{
		{name: "o-series by name", model: "o3-mini", maxTokens: 64, wantLimit: float64(64)},
		{name: "gpt-5 by name", model: "gpt-5-nano", maxTokens: 64, wantLimit: float64(64)},
		{name: "named so by option", model: "my-reasoner", opts: []Option{WithReasoning(true)}, maxTokens: 64, wantLimit: float64(64)},
		{name: "no reserve sends no limit", model: "o4-mini", maxTokens: 0},
		{name: "an ordinary call is refused as the API refuses it", model: "o3", opts: []Option{WithReasoning(false)}, maxTokens: 64,
			wantErr: "HTTP 400: {\"error\":{\"code\":\"unsupported_value\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &reasoningServer{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			m, err := New(srv.URL+"/v1", tc.model, append([]Option{fast}, tc.opts...)...)
			require.NoError(t, err)

			resp, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: tc.maxTokens})

			require.Len(t, fake.calls, 1, "one call: a refusal of these fields is no format fallback")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, globalsearch.KindModel, globalsearch.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 300, resp.OutputTokens)
			body := fake.calls[0]
			assert.NotContains(t, body, "temperature")
			assert.NotContains(t, body, "max_tokens")
			limit, sent := body["max_completion_tokens"]
			assert.Equal(t, tc.wantLimit != nil, sent)
			assert.Equal(t, tc.wantLimit, limit)
			assert.Equal(t, wantFormat(t, globalsearch.StageMap, FormatSchema), body["response_format"])
		})
	}
}

func TestReasoningCutOffNamesItsLimit(t *testing.T) {
	srv := httptest.NewServer(&fakeServer{replies: []reply{completion("", "length", 90, 64)}})
	defer srv.Close()
	m, err := New(srv.URL+"/v1", "o3-mini", fast)
	require.NoError(t, err)
	_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Prompt: "p", MaxTokens: 64})
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "stopped at max_completion_tokens 64: the output reserve reduceOutputReserve was too small")
}

func TestIsReasoningModel(t *testing.T) {
	cases := map[string]bool{
		"o1": true, "o1-mini": true, "o3": true, "O3-Mini": true, "o4-mini-2025-04-16": true,
		"gpt-5": true, "gpt-5-mini": true, "gpt-5.1": true, "openai/gpt-5-nano": true, " o3 ": true,
		"gpt-4o": false, "gpt-4o-mini": false, "llama3.1:8b": false, "omni": false, "o": false,
		"meta-llama/Llama-3.1-8B-Instruct": false, "gpt-50x": false, "solo3": false,
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, want, IsReasoningModel(name))
		})
	}
}
