package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
)

func TestParseAzureSpec(t *testing.T) {
	cases := []struct {
		in      string
		want    modelSpec
		wantErr string
	}{
		{in: "azure:gpt-4o@https://my-resource.openai.azure.com/", want: modelSpec{provider: "azure", model: "gpt-4o", baseURL: "https://my-resource.openai.azure.com"}},
		{in: "azure:o4-mini@https://my-resource.openai.azure.com", want: modelSpec{provider: "azure", model: "o4-mini", baseURL: "https://my-resource.openai.azure.com"}},
		{in: "azure:gpt-4o", wantErr: "want azure:<deployment>@<endpoint>"},
		{in: "azure:@https://r.openai.azure.com", wantErr: "want azure:<deployment>@<endpoint>"},
		{in: "azure:a/b@https://r.openai.azure.com", wantErr: "want azure:<deployment>@<endpoint>"},
		{in: "azure:gpt-4o@r.openai.azure.com", wantErr: `endpoint "r.openai.azure.com" must be an https URL`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseModelSpec(tc.in)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			var usage *usageError
			require.ErrorAs(t, err, &usage)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

// TestOpenAzure: the flags and the environment reach the Azure endpoint as
// its path, api-version and credential headers.
func TestOpenAzure(t *testing.T) {
	type seen struct{ path, version, apiKey, auth string }
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		want    seen
		wantErr string // a usage error, before any call
	}{
		{name: "api key, default api-version", env: map[string]string{"AZURE_OPENAI_API_KEY": "k1"},
			want: seen{"/openai/deployments/gpt-4o/chat/completions", openai.DefaultAzureAPIVersion, "k1", ""}},
		{name: "Entra token, api-version from the environment", env: map[string]string{"AZURE_OPENAI_AD_TOKEN": "tok", "AZURE_OPENAI_API_VERSION": "2025-04-01-preview"},
			want: seen{"/openai/deployments/gpt-4o/chat/completions", "2025-04-01-preview", "", "Bearer tok"}},
		{name: "the flag's api-version wins", args: []string{"--azure-api-version", "2024-12-01-preview"},
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
			var o modelOptions
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			o.register(fs)
			require.NoError(t, fs.Parse(append([]string{"--model", "azure:gpt-4o@" + srv.URL}, tc.args...)))

			m, err := o.open(context.Background(), fakeEnv(tc.env))
			if tc.wantErr != "" {
				var usage *usageError
				require.ErrorAs(t, err, &usage)
				assert.Contains(t, err.Error(), tc.wantErr)
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

func TestModelKindFlags(t *testing.T) {
	cases := []struct {
		name          string
		args          []string
		spec          string
		wantReasoning bool
		wantFormat    openai.Format
		wantErr       string
	}{
		{name: "reasoning guessed from the name", spec: "openai:o3-mini@http://localhost:1/v1", wantReasoning: true},
		{name: "an ordinary model", spec: "openai:llama3.1@http://localhost:1/v1"},
		{name: "--reasoning", args: []string{"--reasoning"}, spec: "openai:my-reasoner@http://localhost:1/v1", wantReasoning: true},
		{name: "--reasoning=false", args: []string{"--reasoning=false"}, spec: "openai:o3@http://localhost:1/v1"},
		{name: "structured output off asks for a JSON object", args: []string{"--structured-output", "off"},
			spec: "openai:llama3.1@http://localhost:1/v1", wantFormat: openai.FormatJSON},
		{name: "structured output on", args: []string{"--structured-output", "on"}, spec: "openai:llama3.1@http://localhost:1/v1"},
		{name: "a bad structured output", args: []string{"--structured-output", "always"}, spec: "openai:llama3.1@http://localhost:1/v1",
			wantErr: `--structured-output "always": want auto, on or off`},
		{name: "--reasoning for a Bedrock model", args: []string{"--reasoning"}, spec: "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0",
			wantErr: "--reasoning applies to openai: and azure: models only"},
		{name: "--azure-api-version for another model", args: []string{"--azure-api-version", "2024-10-21"}, spec: "openai:llama3.1@http://localhost:1/v1",
			wantErr: "--azure-api-version applies to azure: models only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o modelOptions
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			o.register(fs)
			require.NoError(t, fs.Parse(append([]string{"--model", tc.spec}, tc.args...)))
			m, err := o.open(context.Background(), fakeEnv(nil))
			if tc.wantErr != "" {
				var usage *usageError
				require.ErrorAs(t, err, &usage)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			inner := unwrapTimeout(t, m, defaultModelTimeout)
			require.IsType(t, &openai.Model{}, inner)
			assert.Equal(t, tc.wantReasoning, inner.(*openai.Model).Reasoning())
			assert.Equal(t, tc.wantFormat, inner.(*openai.Model).Format())
		})
	}
	t.Run("a bad --reasoning", func(t *testing.T) {
		var o modelOptions
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.register(fs)
		err := fs.Parse([]string{"--reasoning=maybe"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `want true or false, got "maybe"`)
	})
}

// TestStructuredOutputFlagReachesBedrock builds the model from the flag's
// options directly, so no AWS configuration is read.
func TestStructuredOutputFlagReachesBedrock(t *testing.T) {
	const haiku45, haiku35 = "us.anthropic.claude-haiku-4-5-20251001-v1:0", "us.anthropic.claude-3-5-haiku-20241022-v1:0"
	cases := []struct {
		mode, model string
		want        bool
	}{
		{"auto", haiku45, true},
		{"auto", haiku35, false},
		{"on", haiku35, true},
		{"off", haiku45, false},
	}
	for _, tc := range cases {
		t.Run(tc.mode+" "+tc.model, func(t *testing.T) {
			k := modelKindOptions{structured: tc.mode}
			require.NoError(t, k.check("bedrock:"+tc.model))
			m, err := bedrock.New(aws.Config{Region: "us-west-2"}, tc.model, k.bedrockOptions()...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.Structured())
		})
	}
}
