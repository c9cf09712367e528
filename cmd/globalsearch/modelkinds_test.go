package main

import (
	"context"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// TestModelKindFlags: the kind flags reach provider.Kind (whose own tests
// cover what each does to a model), and one that applies to no stage's
// model is a usage error.
func TestModelKindFlags(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name    string
		args    []string
		spec    string
		want    provider.Kind
		wantErr string
	}{
		{name: "none", spec: "openai:llama3.1@http://localhost:1/v1", want: provider.Kind{Structured: "auto"}},
		{name: "--reasoning", args: []string{"--reasoning"}, spec: "openai:my-reasoner@http://localhost:1/v1",
			want: provider.Kind{Reasoning: &yes, Structured: "auto"}},
		{name: "--reasoning=false", args: []string{"--reasoning=false"}, spec: "openai:o3@http://localhost:1/v1",
			want: provider.Kind{Reasoning: &no, Structured: "auto"}},
		{name: "--structured-output off", args: []string{"--structured-output", "off"}, spec: "openai:llama3.1@http://localhost:1/v1",
			want: provider.Kind{Structured: "off"}},
		{name: "--azure-api-version", args: []string{"--azure-api-version", "2024-12-01-preview"}, spec: "azure:gpt-4o@https://r.openai.azure.com",
			want: provider.Kind{Structured: "auto", AzureAPIVersion: "2024-12-01-preview"}},
		{name: "a bad structured output", args: []string{"--structured-output", "always"}, spec: "openai:llama3.1@http://localhost:1/v1",
			wantErr: `--structured-output "always": want auto, on or off`},
		{name: "--reasoning for a Bedrock model", args: []string{"--reasoning"}, spec: "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0",
			wantErr: "--reasoning applies to openai: and azure: models only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o modelOptions
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			o.register(fs)
			require.NoError(t, fs.Parse(append([]string{"--model", tc.spec}, tc.args...)))
			if tc.wantErr != "" {
				_, err := o.open(context.Background(), fakeEnv(nil))
				var usage *usageError
				require.ErrorAs(t, err, &usage)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			assert.Equal(t, tc.want, o.kinds.kind())
		})
	}
	t.Run("the flags reach the model", func(t *testing.T) {
		var o modelOptions
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		o.register(fs)
		require.NoError(t, fs.Parse([]string{"--model", "openai:o3@http://localhost:1/v1", "--reasoning=false", "--structured-output", "off"}))
		m, err := o.open(context.Background(), fakeEnv(nil))
		require.NoError(t, err)
		inner := unwrapTimeout(t, m, provider.DefaultTimeout)
		require.IsType(t, &openai.Model{}, inner)
		assert.False(t, inner.(*openai.Model).Reasoning())
		assert.Equal(t, openai.FormatJSON, inner.(*openai.Model).Format())
	})
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
