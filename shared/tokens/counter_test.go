package tokens_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func TestDefaultForFollowsTheModelFamily(t *testing.T) {
	tests := []struct {
		model, family, tokenizer string
	}{
		{"", tokens.FamilyOffline, tokens.NameEstimate},
		{"offline", tokens.FamilyOffline, tokens.NameEstimate},
		{"openai:gpt-4o-mini@http://localhost:1/v1", tokens.FamilyO200k, tokens.NameO200k},
		{"openai:gpt-4.1@https://api.openai.com/v1", tokens.FamilyO200k, tokens.NameO200k},
		{"openai:o3-mini@https://api.openai.com/v1", tokens.FamilyO200k, tokens.NameO200k},
		{"openai:gpt-5-nano@https://api.openai.com/v1", tokens.FamilyO200k, tokens.NameO200k},
		{"openai:gpt-4@https://api.openai.com/v1", tokens.FamilyCL100k, tokens.NameCL100k},
		{"gpt-4.1-mini", tokens.FamilyO200k, tokens.NameO200k},
		{"azure:gpt-4o@https://my.openai.azure.com", tokens.FamilyO200k, tokens.NameO200k},
		{"openai:openai/gpt-4o@https://router.example/v1", tokens.FamilyO200k, tokens.NameO200k},
		{"openai:gpt-3.5-turbo@https://api.openai.com/v1", tokens.FamilyCL100k, tokens.NameCL100k},
		{"anthropic.claude-3-5-haiku-20241022-v1:0", tokens.FamilyClaude, tokens.NameCalibrated},
		{"us.anthropic.claude-3-5-haiku-20241022-v1:0", tokens.FamilyClaude, tokens.NameCalibrated},
		{"bedrock:us.amazon.nova-lite-v1:0", tokens.FamilyNova, tokens.NameCalibrated},
		{"openai:llama3.1:8b@http://localhost:11434/v1", tokens.FamilyLlama, tokens.NameCalibrated},
		{"openai:mistral@http://gpt-4o.example/v1", tokens.FamilyOther, tokens.NameCalibrated}, // the URL never counts
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			assert.Equal(t, tc.family, tokens.Family(tc.model))
			assert.Equal(t, tc.tokenizer, tokens.DefaultFor(tc.model))
		})
	}
}

func TestCalibratedTokens(t *testing.T) {
	claude := tokens.CalibratedFor("anthropic.claude-3-haiku")
	require.Equal(t, tokens.RatesClaude, claude.Rates)
	tests := []struct {
		name string
		text string
		want int
	}{
		{"empty", "", 0},
		{"400 ascii: 100 tokens and 15%", strings.Repeat("x", 400), 115},
		{"101 cjk: 100 tokens and 15%", strings.Repeat("中", 101), 115},
		{"one ascii rounds up", "x", 1},
		{"mixed", strings.Repeat("x", 40) + strings.Repeat("中", 10), 23}, // 1.15*(10+9.90...) = 22.9
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, claude.Tokens(claude.Of(tc.text)))
		})
	}
	assert.Equal(t, tokens.RatesUnknown, tokens.CalibratedFor("bedrock:amazon.nova-pro-v1:0").Rates, "an unmeasured family takes the lowest rate")
}

func TestForRefusesWhatItCannotCount(t *testing.T) {
	c, err := tokens.For("", "")
	require.NoError(t, err)
	assert.Equal(t, tokens.NameEstimate, c.Name(), "a plan stored before the option counts with the estimate")
	_, err = tokens.For("p50k", "")
	assert.EqualError(t, err, `tokenizer must be one of estimate, o200k, cl100k, calibrated, not "p50k"`)
	// This test binary does not import shared/tokens/bpe.
	_, err = tokens.For(tokens.NameO200k, "")
	var notLinked *tokens.ErrNotLinked
	require.ErrorAs(t, err, &notLinked)
	assert.Equal(t, tokens.NameO200k, notLinked.Name)
}

func TestEstimateCounterIsTheEstimate(t *testing.T) {
	for _, s := range []string{"", "hello world", "中文测试", "Hello, 世界!"} {
		c := tokens.EstimateCounter
		assert.Equal(t, tokens.Estimate(s), c.Tokens(c.Of(s)), s)
		p := tokens.NewPromptWith(c, "Q:")
		assert.Equal(t, tokens.NewPrompt("Q:").Tokens(tokens.Of(s)), p.Tokens(c.Of(s)), s)
	}
}
