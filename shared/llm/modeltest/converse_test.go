package modeltest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// TestConverseServer: the fake answers its script in order, repeating the
// last reply, in the Converse wire format, and records each call.
func TestConverseServer(t *testing.T) {
	srv := modeltest.NewConverseServer(t, modeltest.InOrder(
		modeltest.ConverseError(http.StatusTooManyRequests, "ThrottlingException"),
		modeltest.ConverseText(`{"answer":"a"}`, 7, 3),
	))
	tests := []struct {
		name       string
		wantStatus int
		wantType   string
		wantBody   map[string]any
	}{
		{name: "first reply", wantStatus: http.StatusTooManyRequests, wantType: "ThrottlingException",
			wantBody: map[string]any{"message": "ThrottlingException from the fake Converse endpoint"}},
		{name: "second reply", wantStatus: http.StatusOK, wantBody: map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": `{"answer":"a"}`}}}},
			"stopReason": "end_turn",
			"usage":      map[string]any{"inputTokens": float64(7), "outputTokens": float64(3), "totalTokens": float64(10)},
			"metrics":    map[string]any{"latencyMs": float64(1)},
		}},
		{name: "the last reply repeats", wantStatus: http.StatusOK},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+"/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fm/converse",
				"application/json", strings.NewReader(`{"messages":[]}`))
			require.NoError(t, err)
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			require.NoError(t, err)

			assert.Equal(t, tc.wantStatus, resp.StatusCode)
			assert.Equal(t, tc.wantType, resp.Header.Get("X-Amzn-ErrorType"))
			assert.NotEmpty(t, resp.Header.Get("x-amzn-RequestId"))
			if tc.wantBody != nil {
				var body map[string]any
				require.NoError(t, json.Unmarshal(data, &body), string(data))
				assert.Equal(t, tc.wantBody, body)
			}
			calls := srv.Calls()
			require.Len(t, calls, i+1)
			assert.Equal(t, i+1, calls[i].Seq)
			assert.Equal(t, "arn:aws:bedrock:us-east-1:1:inference-profile/m", calls[i].ModelID, "the label unescaped")
			assert.Equal(t, "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fm/converse", calls[i].RawPath)
			assert.Equal(t, map[string]any{"messages": []any{}}, calls[i].Body)
		})
	}
	assert.Equal(t, len(tests), srv.Count())
}
