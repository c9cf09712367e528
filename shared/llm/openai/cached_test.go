package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// docs/contract.md#prompt-cache: a server's own prefix cache is reported as
// cacheReadInputTokens, inside prompt_tokens; a server that says nothing
// of it reports 0.
func TestCachedTokensAreReported(t *testing.T) {
	tests := []struct {
		name   string
		usage  map[string]any
		cached int
	}{
		{"cached", map[string]any{"prompt_tokens": 2000, "completion_tokens": 5, "total_tokens": 2005,
			"prompt_tokens_details": map[string]any{"cached_tokens": 1536}}, 1536},
		{"no details", map[string]any{"prompt_tokens": 2000, "completion_tokens": 5, "total_tokens": 2005}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(map[string]any{
				"id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.1",
				"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "{}"}, "finish_reason": "stop"}},
				"usage":   tc.usage,
			})
			srv := httptest.NewServer(&fakeServer{replies: []reply{{status: http.StatusOK, body: string(b)}}})
			defer srv.Close()
			m, err := New(srv.URL+"/v1", "llama3.1")
			require.NoError(t, err)
			resp, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
			require.NoError(t, err)
			assert.Equal(t, 2000, resp.InputTokens)
			assert.Equal(t, tc.cached, resp.CacheReadInputTokens)
		})
	}
}
