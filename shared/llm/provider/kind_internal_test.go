package provider

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
)

// TestStructuredOutputReachesBedrock builds the model from the kind's
// options directly, so no AWS configuration is read.
func TestStructuredOutputReachesBedrock(t *testing.T) {
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
			k := Kind{Structured: tc.mode}
			require.NoError(t, k.Check("bedrock:"+tc.model))
			m, err := bedrock.New(aws.Config{Region: "us-west-2"}, tc.model, k.bedrockOptions()...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.Structured())
		})
	}
}
