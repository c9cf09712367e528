package bedrock_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
)

// countRequest is the body of a CountTokens call for a Converse request.
type countRequest struct {
	Input struct {
		Converse struct {
			System   []struct{ Text string }
			Messages []struct {
				Role    string
				Content []struct{ Text string }
			}
		}
	}
}

func TestCountTokens(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	tests := []struct {
		name      string
		status    int
		errorType string
		body      string
		want      int
		wantKind  globalsearch.Kind
		wantErr   string
	}{
		{name: "counted", status: http.StatusOK, body: `{"inputTokens": 321}`, want: 321},
		{name: "a model that counts no tokens", status: http.StatusBadRequest, errorType: "ValidationException",
			body: `{"message":"The provided model doesn't support counting tokens."}`, wantKind: globalsearch.KindModel,
			wantErr: "bedrock model " + haiku + " failed (ValidationException, HTTP 400)"},
		{name: "a count of zero", status: http.StatusOK, body: `{"inputTokens": 0}`, wantKind: globalsearch.KindModel,
			wantErr: "bedrock model " + haiku + " counted 0 input tokens for a prompt of 12 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got countRequest
			var path string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path = r.URL.EscapedPath()
				data, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(data, &got)
				w.Header().Set("Content-Type", "application/json")
				if tc.errorType != "" {
					w.Header().Set("X-Amzn-ErrorType", tc.errorType)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			m, err := bedrock.New(testConfig(srv.URL), haiku, bedrock.WithMaxAttempts(1))
			require.NoError(t, err)

			n, err := m.CountTokens(t.Context(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "Count these.", System: "Be brief."})
			assert.Equal(t, "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/count-tokens", path)
			require.Len(t, got.Input.Converse.System, 1)
			assert.Equal(t, "Be brief.", got.Input.Converse.System[0].Text, "the system prompt Complete sends")
			require.Len(t, got.Input.Converse.Messages, 1)
			assert.Equal(t, "user", got.Input.Converse.Messages[0].Role)
			require.Len(t, got.Input.Converse.Messages[0].Content, 1)
			assert.Equal(t, "Count these.", got.Input.Converse.Messages[0].Content[0].Text)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, n)
		})
	}
}
