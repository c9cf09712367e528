package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// azureCall is what an Azure OpenAI endpoint reads off a request besides
// its body: path, api-version and credentials.
type azureCall struct {
	path, apiVersion, apiKey, auth string
}

func TestAzure(t *testing.T) {
	cases := []struct {
		name, deployment, apiVersion string
		opts                         []Option
		want                         azureCall
		wantReasoning                bool
	}{
		{
			name: "api-key", deployment: "gpt-4o-prod", apiVersion: "2024-10-21",
			opts: []Option{WithAzureAPIKey("azure-key")},
			want: azureCall{path: "/openai/deployments/gpt-4o-prod/chat/completions", apiVersion: "2024-10-21", apiKey: "azure-key"},
		},
		{
			name: "Entra token, default api-version", deployment: "gpt-4o-prod",
			opts: []Option{WithAPIKey("entra-token")},
			want: azureCall{path: "/openai/deployments/gpt-4o-prod/chat/completions", apiVersion: DefaultAzureAPIVersion, auth: "Bearer entra-token"},
		},
		{
			name: "a reasoning deployment", deployment: "o4-mini", apiVersion: "2025-04-01-preview",
			opts:          []Option{WithAzureAPIKey("azure-key")},
			want:          azureCall{path: "/openai/deployments/o4-mini/chat/completions", apiVersion: "2025-04-01-preview", apiKey: "azure-key"},
			wantReasoning: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls []azureCall
			fake := &fakeServer{replies: []reply{completion(`{"answer":"a","usefulness":40}`, "stop", 90, 12)}}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls = append(calls, azureCall{path: r.URL.Path, apiVersion: r.URL.Query().Get("api-version"),
					apiKey: r.Header.Get("api-key"), auth: r.Header.Get("Authorization")})
				fake.ServeHTTP(w, r)
			}))
			defer srv.Close()
			// The resource's endpoint as the portal shows it, trailing slash and all.
			m, err := NewAzure(srv.URL+"/", tc.deployment, tc.apiVersion, append([]Option{fast}, tc.opts...)...)
			require.NoError(t, err)
			assert.Equal(t, tc.wantReasoning, m.Reasoning())

			resp, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 64})
			require.NoError(t, err)
			assert.Equal(t, `{"answer":"a","usefulness":40}`, resp.Text)

			require.Len(t, calls, 1)
			got := calls[0]
			assert.Equal(t, tc.want.path, got.path)
			assert.Equal(t, tc.want.apiVersion, got.apiVersion)
			assert.Equal(t, tc.want.apiKey, got.apiKey, "api-key header")
			assert.Equal(t, tc.want.auth, got.auth, "Authorization header")
			body := fake.snapshot()[0].body
			assert.Equal(t, tc.deployment, body["model"])
			assert.Equal(t, wantFormat(t, globalsearch.StageMap, FormatSchema), body["response_format"])
			if tc.wantReasoning {
				assert.Equal(t, float64(64), body["max_completion_tokens"])
				assert.NotContains(t, body, "temperature")
				assert.NotContains(t, body, "max_tokens")
			} else {
				assert.Equal(t, float64(64), body["max_tokens"])
				assert.Equal(t, float64(0), body["temperature"])
			}
		})
	}
}

func TestAzureInvalid(t *testing.T) {
	cases := []struct {
		name, endpoint, deployment string
		opts                       []Option
		wantInErr                  string
	}{
		{"no credential", "https://r.openai.azure.com", "d", nil, "needs exactly one credential"},
		{"two credentials", "https://r.openai.azure.com", "d", []Option{WithAPIKey("t"), WithAzureAPIKey("k")}, "needs exactly one credential"},
		{"plain http off loopback", "http://r.openai.azure.com", "d", []Option{WithAzureAPIKey("k")}, "must be an https URL"},
		{"no host", "https://", "d", []Option{WithAzureAPIKey("k")}, "must be an https URL"},
		{"no deployment", "https://r.openai.azure.com", " ", []Option{WithAzureAPIKey("k")}, "needs a deployment name"},
		{"a deployment with a slash", "https://r.openai.azure.com", "a/b", []Option{WithAzureAPIKey("k")}, "needs a deployment name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAzure(tc.endpoint, tc.deployment, "", tc.opts...)
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), tc.wantInErr)
		})
	}
	_, err := New("https://api.openai.com/v1", "gpt-4o", WithAzureAPIKey("k"))
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "an api-key is no OpenAI credential")
}
