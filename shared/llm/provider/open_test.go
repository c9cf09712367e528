package provider_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// env is a LookupEnv whose environment is vars and nothing else.
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestOpen(t *testing.T) {
	// Keep the developer's AWS setup out of the test.
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	ctx := context.Background()

	t.Run("offline", func(t *testing.T) {
		m, err := provider.Open(ctx, provider.Options{Spec: "offline", LookupEnv: env(nil)})
		require.NoError(t, err)
		assert.IsType(t, &offline.Model{}, unwrapTimeout(t, m, provider.DefaultTimeout))
	})
	t.Run("bedrock", func(t *testing.T) {
		t.Setenv("AWS_REGION", "us-west-2")
		t.Setenv("AWS_ACCESS_KEY_ID", "test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
		m, err := provider.Open(ctx, provider.Options{Spec: "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0"})
		require.NoError(t, err)
		inner := unwrapTimeout(t, m, provider.DefaultTimeout)
		require.IsType(t, &bedrock.Model{}, inner)
		assert.Equal(t, "us.anthropic.claude-3-5-haiku-20241022-v1:0", inner.(*bedrock.Model).ModelID())
	})
	t.Run("bedrock without a region", func(t *testing.T) {
		t.Setenv("AWS_REGION", "")
		_, err := provider.Open(ctx, provider.Options{Spec: "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0"})
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		assert.ErrorContains(t, err, "AWS_REGION")
	})
	t.Run("openai", func(t *testing.T) {
		m, err := provider.Open(ctx, provider.Options{Spec: "openai:llama3.1@http://localhost:11434/v1",
			LookupEnv: env(map[string]string{"OPENAI_API_KEY": "sk-x"}), Timeout: 45 * time.Second})
		require.NoError(t, err)
		assert.IsType(t, &openai.Model{}, unwrapTimeout(t, m, 45*time.Second))
	})
	t.Run("bad spec", func(t *testing.T) {
		_, err := provider.Open(ctx, provider.Options{Spec: "openai:llama3.1"})
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	})
}

func TestTimeoutFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{name: "unset", want: provider.DefaultTimeout},
		{name: "blank", env: map[string]string{"GRAPHRAG_MODEL_TIMEOUT": " "}, want: provider.DefaultTimeout},
		{name: "set", env: map[string]string{"GRAPHRAG_MODEL_TIMEOUT": "45s"}, want: 45 * time.Second},
		{name: "bad", env: map[string]string{"GRAPHRAG_MODEL_TIMEOUT": "soon"},
			wantErr: `GRAPHRAG_MODEL_TIMEOUT: model timeout must be a positive duration such as 90s or 5m, got "soon"`},
		{name: "zero", env: map[string]string{"GRAPHRAG_MODEL_TIMEOUT": "0s"}, wantErr: "model timeout must be a positive duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := provider.TimeoutFromEnv(env(tc.env))
			if tc.wantErr != "" {
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// unwrapTimeout checks that m bounds its calls by timeout and returns the
// model inside.
func unwrapTimeout(t *testing.T, m globalsearch.Model, timeout time.Duration) globalsearch.Model {
	t.Helper()
	tm, ok := m.(globalsearch.TimeoutModel)
	require.True(t, ok, "every model Open opens has a call timeout, got %T", m)
	assert.Equal(t, timeout, tm.Timeout)
	return tm.Model
}

// TestOpenAzure: the options and the environment reach the Azure endpoint
// as its path, api-version and credential headers.
func TestOpenAzure(t *testing.T) {
	type seen struct{ path, version, apiKey, auth string }
	cases := []struct {
		name       string
		apiVersion string
		env        map[string]string
		want       seen
		wantErr    string // invalid input, before any call
	}{
		{name: "api key, default api-version", env: map[string]string{"AZURE_OPENAI_API_KEY": "k1"},
			want: seen{"/openai/deployments/gpt-4o/chat/completions", openai.DefaultAzureAPIVersion, "k1", ""}},
		{name: "Entra token, api-version from the environment", env: map[string]string{"AZURE_OPENAI_AD_TOKEN": "tok", "AZURE_OPENAI_API_VERSION": "2025-04-01-preview"},
			want: seen{"/openai/deployments/gpt-4o/chat/completions", "2025-04-01-preview", "", "Bearer tok"}},
		{name: "the option's api-version wins", apiVersion: "2024-12-01-preview",
			env:  map[string]string{"AZURE_OPENAI_API_KEY": "k1", "AZURE_OPENAI_API_VERSION": "2025-04-01-preview"},
			want: seen{"/openai/deployments/gpt-4o/chat/completions", "2024-12-01-preview", "k1", ""}},
		{name: "no credential", wantErr: "needs a credential: set AZURE_OPENAI_API_KEY"},
		{name: "two credentials", env: map[string]string{"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_AD_TOKEN": "t"}, wantErr: "not both"},
		{name: "OPENAI_API_KEY is not an Azure credential", env: map[string]string{"OPENAI_API_KEY": "sk-x"}, wantErr: "needs a credential"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []seen
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = append(got, seen{r.URL.Path, r.URL.Query().Get("api-version"), r.Header.Get("api-key"), r.Header.Get("Authorization")})
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"{\"answer\":\"a\",\"usefulness\":5}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`)
			}))
			defer srv.Close()
			m, err := provider.Open(context.Background(), provider.Options{Spec: "azure:gpt-4o@" + srv.URL,
				Kind: provider.Kind{AzureAPIVersion: tc.apiVersion}, LookupEnv: env(tc.env)})
			if tc.wantErr != "" {
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0])
		})
	}
}

func TestKind(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name          string
		kind          provider.Kind
		spec          string
		wantReasoning bool
		wantFormat    openai.Format
		wantErr       string
	}{
		{name: "reasoning guessed from the name", spec: "openai:o3-mini@http://localhost:1/v1", wantReasoning: true},
		{name: "an ordinary model", spec: "openai:llama3.1@http://localhost:1/v1"},
		{name: "reasoning", kind: provider.Kind{Reasoning: &yes}, spec: "openai:my-reasoner@http://localhost:1/v1", wantReasoning: true},
		{name: "not reasoning", kind: provider.Kind{Reasoning: &no}, spec: "openai:o3@http://localhost:1/v1"},
		{name: "structured output off asks for a JSON object", kind: provider.Kind{Structured: "off"},
			spec: "openai:llama3.1@http://localhost:1/v1", wantFormat: openai.FormatJSON},
		{name: "structured output on", kind: provider.Kind{Structured: "on"}, spec: "openai:llama3.1@http://localhost:1/v1"},
		{name: "a bad structured output", kind: provider.Kind{Structured: "always"}, spec: "openai:llama3.1@http://localhost:1/v1",
			wantErr: `--structured-output "always": want auto, on or off`},
		{name: "reasoning for a Bedrock model", kind: provider.Kind{Reasoning: &yes}, spec: "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0",
			wantErr: "--reasoning applies to openai: and azure: models only"},
		{name: "an api-version for another model", kind: provider.Kind{AzureAPIVersion: "2024-10-21"}, spec: "openai:llama3.1@http://localhost:1/v1",
			wantErr: "--azure-api-version applies to azure: models only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.kind.Check(tc.spec)
			if tc.wantErr != "" {
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			m, err := provider.Open(context.Background(), provider.Options{Spec: tc.spec, Kind: tc.kind})
			require.NoError(t, err)
			inner := unwrapTimeout(t, m, provider.DefaultTimeout)
			require.IsType(t, &openai.Model{}, inner)
			assert.Equal(t, tc.wantReasoning, inner.(*openai.Model).Reasoning())
			assert.Equal(t, tc.wantFormat, inner.(*openai.Model).Format())
		})
	}
}

// TestOpenStages: each stage opens its own model; a reduce stage with the
// map stage's spec shares it.
func TestOpenStages(t *testing.T) {
	off, big := "offline", "openai:big@http://localhost:1/v1"
	cases := []struct {
		name             string
		stages           provider.Stages
		wantMap, wantRed string // "" for no reduce model of its own
	}{
		{"one model", provider.Stages{Model: off}, off, ""},
		{"a map model of its own", provider.Stages{Model: big, Map: &off}, off, big},
		{"the same model twice is one", provider.Stages{Model: off, Map: &off, Reduce: &off}, off, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, r, err := provider.OpenStages(context.Background(), tc.stages, provider.Options{Timeout: time.Minute})
			require.NoError(t, err)
			assert.Equal(t, tc.wantMap, m.(globalsearch.TimeoutModel).Name)
			assert.Equal(t, time.Minute, m.(globalsearch.TimeoutModel).Timeout)
			if tc.wantRed == "" {
				assert.Nil(t, r)
				return
			}
			assert.Equal(t, tc.wantRed, r.(globalsearch.TimeoutModel).Name)
		})
	}
}
