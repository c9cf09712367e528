package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens/bpe"
)

// TestPlanTokenizer: --tokenizer, else the family of --model, else
// GRAPHRAG_TOKENIZER, counts the plan (docs/contract.md#tokenizer).
func TestPlanTokenizer(t *testing.T) {
	const sample = "../../testdata/sample-index.json"
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"offline: the estimate", nil, nil, ""},
		{"the flag", []string{"--tokenizer", "o200k"}, nil, "o200k"},
		{"gpt-4o: o200k", []string{"--model", "openai:gpt-4o@http://localhost:1/v1"}, nil, "o200k"},
		{"gpt-4: cl100k", []string{"--model", "openai:gpt-4@http://localhost:1/v1"}, nil, "cl100k"},
		{"Claude: calibrated", []string{"--model", "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0"}, nil, "calibrated"},
		{"the variable over the family", []string{"--model", "openai:gpt-4o@http://localhost:1/v1"}, map[string]string{"GRAPHRAG_TOKENIZER": "cl100k"}, "cl100k"},
		{"the flag over the variable", []string{"--tokenizer", "estimate"}, map[string]string{"GRAPHRAG_TOKENIZER": "cl100k"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"plan", "--index", sample, "--query", "What changed?", "--seed", "1", "--json"}, tc.args...)
			require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
			var plan planOutput
			require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
			assert.Equal(t, tc.want, plan.Tokenizer)
			if tc.want == "o200k" {
				for _, b := range plan.Batches {
					sent := globalsearch.DefaultPrompts().Map.Render("What changed?", b.Content)
					assert.LessOrEqual(t, bpe.O200k.Count(sent), plan.MapPromptBudget)
				}
			}
		})
	}
	t.Run("a bad value", func(t *testing.T) {
		env, _, errOut := testEnv("")
		code := runMain(context.Background(), env, []string{"plan", "--index", sample, "--query", "q", "--tokenizer", "p50k"})
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut.String(), "tokenizer must be one of estimate, o200k, cl100k, calibrated")
	})
}
