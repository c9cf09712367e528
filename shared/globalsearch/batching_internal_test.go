package globalsearch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// questionReserve holds what a question falls short of the allowance in
// each class (docs/contract.md#batching), and nothing where no cache could
// read a batch or the allowance leaves the skeleton no room.
func TestQuestionReserve(t *testing.T) {
	mapPrompt := DefaultPrompts().Map
	fits := tokens.Estimate(mapPrompt.Skeleton(strings.Repeat("x", questionAllowance.ASCII))+"\n") + 10
	longASCII := strings.Repeat("Why? ", 30)
	// rest is what q falls short of the allowance by, in each class.
	rest := func(q string) tokens.Count {
		c := tokens.Of(q)
		return tokens.Count{ASCII: max(questionAllowance.ASCII-c.ASCII, 0), NonASCII: max(questionAllowance.NonASCII-c.NonASCII, 0), Exact: questionAllowance.Exact}
	}
	tests := []struct {
		name   string
		query  string
		budget int
		want   tokens.Count
	}{
		{"a short ASCII question: the rest of the allowance", "What grew?", 7488, rest("What grew?")},
		{"other code points count in their own class", "Qu'a-t-il été ?", 7488, rest("Qu'a-t-il été ?")},
		{"longer than the allowance in one class: its own length there", longASCII, 7488,
			tokens.Count{NonASCII: questionAllowance.NonASCII, Exact: questionAllowance.Exact}},
		{"exactly the allowance: nothing", strings.Repeat("a", questionAllowance.ASCII) + strings.Repeat("é", questionAllowance.NonASCII), 7488,
			tokens.Count{Exact: questionAllowance.Exact}},
		{"a budget under the smallest cached prefix: nothing", "What grew?", smallestCachedPrompt - 1, tokens.Count{}},
		{"the smallest cached prefix: the allowance", "What grew?", max(smallestCachedPrompt, fits), rest("What grew?")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, questionReserve(tokens.EstimateCounter, mapPrompt, tc.query, tc.budget))
		})
	}
	t.Run("an allowance the skeleton cannot hold beside it: nothing", func(t *testing.T) {
		big, err := ParseTemplate(strings.Repeat("Read the data. ", 280) + "\n<d>\n{{content}}\n</d>\nQuestion: {{query}}")
		require.NoError(t, err)
		room := tokens.Estimate(big.Skeleton("What grew?") + "\n")
		require.GreaterOrEqual(t, room, smallestCachedPrompt)
		assert.Equal(t, tokens.Count{}, questionReserve(tokens.EstimateCounter, big, "What grew?", room+5))
		assert.NotEqual(t, tokens.Count{}, questionReserve(tokens.EstimateCounter, big, "What grew?", room+100))
	})
}
