package provider_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		want    provider.Spec
		wantErr string // substring of the invalid-input error
	}{
		{in: "offline", want: provider.Spec{Provider: "offline"}},
		{in: "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0", want: provider.Spec{Provider: "bedrock", Model: "anthropic.claude-3-5-haiku-20241022-v1:0"}},
		{in: "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0", want: provider.Spec{Provider: "bedrock", Model: "us.anthropic.claude-3-5-haiku-20241022-v1:0"}},
		{
			in:   "bedrock:arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0",
			want: provider.Spec{Provider: "bedrock", Model: "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0"},
		},
		{in: "openai:llama3.1@http://localhost:11434/v1", want: provider.Spec{Provider: "openai", Model: "llama3.1", BaseURL: "http://localhost:11434/v1"}},
		{in: "openai:llama3.1:8b@http://localhost:11434/v1/", want: provider.Spec{Provider: "openai", Model: "llama3.1:8b", BaseURL: "http://localhost:11434/v1"}},
		{in: "openai:meta-llama/Llama-3.1-8B-Instruct@https://vllm.internal:8000/v1", want: provider.Spec{Provider: "openai", Model: "meta-llama/Llama-3.1-8B-Instruct", BaseURL: "https://vllm.internal:8000/v1"}},
		{in: "", wantErr: `unknown --model ""`},
		{in: "claude", wantErr: `unknown --model "claude"; want offline | bedrock:`},
		{in: "gemini:pro", wantErr: `unknown model provider "gemini"`},
		{in: "bedrock:", wantErr: "want bedrock:<model-or-inference-profile-id>"},
		{in: "bedrock:a model", wantErr: "want bedrock:<model-or-inference-profile-id>"},
		{in: "openai:llama3.1", wantErr: "want openai:<model>@<base-url>"},
		{in: "openai:@http://localhost:11434/v1", wantErr: "want openai:<model>@<base-url>"},
		{in: "openai:llama3.1@", wantErr: "want openai:<model>@<base-url>"},
		{in: "openai:llama3.1@localhost:11434", wantErr: `base URL "localhost:11434" must be an http(s) URL`},
		{in: "openai:llama3.1@ftp://host/v1", wantErr: "must be an http(s) URL"},
		// Azure OpenAI.
		{in: "azure:gpt-4o@https://my-resource.openai.azure.com/", want: provider.Spec{Provider: "azure", Model: "gpt-4o", BaseURL: "https://my-resource.openai.azure.com"}},
		{in: "azure:o4-mini@https://my-resource.openai.azure.com", want: provider.Spec{Provider: "azure", Model: "o4-mini", BaseURL: "https://my-resource.openai.azure.com"}},
		{in: "azure:gpt-4o", wantErr: "want azure:<deployment>@<endpoint>"},
		{in: "azure:@https://r.openai.azure.com", wantErr: "want azure:<deployment>@<endpoint>"},
		{in: "azure:a/b@https://r.openai.azure.com", wantErr: "want azure:<deployment>@<endpoint>"},
		{in: "azure:gpt-4o@r.openai.azure.com", wantErr: `endpoint "r.openai.azure.com" must be an https URL`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := provider.Parse(tc.in)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

// TestStages: each stage calls --model unless it names its own; a bad
// spec of either stage, or a kind option no stage's model takes, is
// refused before any model opens.
func TestStages(t *testing.T) {
	offline, bad, openai := "offline", "nonsense", "openai:big@http://localhost:1/v1"
	on := true
	cases := []struct {
		name            string
		stages          provider.Stages
		kind            provider.Kind
		wantMap, wantRe string
		wantErr         string
	}{
		{name: "one model", stages: provider.Stages{Model: openai}, wantMap: openai, wantRe: openai},
		{name: "a map model of its own", stages: provider.Stages{Model: openai, Map: &offline}, wantMap: offline, wantRe: openai},
		{name: "a reduce model of its own", stages: provider.Stages{Model: openai, Reduce: &offline}, wantMap: openai, wantRe: offline},
		{name: "a bad reduce model", stages: provider.Stages{Model: offline, Reduce: &bad}, wantMap: offline, wantRe: bad, wantErr: `unknown --model "nonsense"`},
		{name: "reasoning for the reduce model only", stages: provider.Stages{Model: openai, Map: &offline}, kind: provider.Kind{Reasoning: &on},
			wantMap: offline, wantRe: openai},
		{name: "reasoning for no stage", stages: provider.Stages{Model: offline}, kind: provider.Kind{Reasoning: &on},
			wantMap: offline, wantRe: offline, wantErr: "--reasoning applies to openai: and azure: models only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.wantMap, tc.stages.MapSpec())
			assert.Equal(t, tc.wantRe, tc.stages.ReduceSpec())
			err := tc.stages.Check(tc.kind)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.ErrorContains(t, err, tc.wantErr)
		})
	}
}
