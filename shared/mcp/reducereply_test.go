package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestMCPReplySaysTheReduceRounds: the reply names the rounds the reduce
// ran and, when one reduce prompt left useful answers out, how many and
// that reduceMode "tree" would keep them; a reduce in rounds, or one that
// skipped nothing, gives no hint (docs/contract.md#reduce-rounds).
func TestMCPReplySaysTheReduceRounds(t *testing.T) {
	tests := []struct {
		name       string
		rounds     int
		answers    *globalsearch.MapAnswerCoverage
		wantRounds int
		wantHint   string
	}{
		{"single skipped answers", 1, &globalsearch.MapAnswerCoverage{Useful: 5, ReachedReduce: 2, SkippedForBudget: 3}, 1,
			`3 useful answers skipped for the reduce budget; reduceMode "tree" would keep them`},
		{"single skipped one", 1, &globalsearch.MapAnswerCoverage{Useful: 2, ReachedReduce: 1, SkippedForBudget: 1}, 1,
			`1 useful answer skipped for the reduce budget; reduceMode "tree" would keep them`},
		{"tree in rounds", 3, &globalsearch.MapAnswerCoverage{Useful: 5, ReachedReduce: 5, InRounds: true}, 3, ""},
		{"rounds that still skipped", 2, &globalsearch.MapAnswerCoverage{Useful: 5, ReachedReduce: 4, SkippedForBudget: 1, InRounds: true}, 2, ""},
		{"nothing skipped", 1, &globalsearch.MapAnswerCoverage{Useful: 2, ReachedReduce: 2}, 1, ""},
		{"no reduce call", 0, nil, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res globalsearch.Result
			res.Diagnostics.Reduce.Rounds = tc.rounds
			res.Diagnostics.Coverage.MapAnswers = tc.answers
			out := (&tools{}).reply(t.Context(), nil, res, false)
			assert.Equal(t, tc.wantRounds, out.ReduceRounds)
			assert.Equal(t, tc.wantHint, out.ReduceHint)
		})
	}
}

// TestMCPReplyRoundsOfARun: a search's reply carries the rounds its
// result reports.
func TestMCPReplyRoundsOfARun(t *testing.T) {
	cs := connect(t, seeded(fileServer(writeIndex(t, titledIndex()), nil), 1), nil)
	for _, mode := range []string{"single", "tree"} {
		t.Run(mode, func(t *testing.T) {
			var out searchOutput
			res := callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?", "reduceMode": mode}, &out)
			require.False(t, res.IsError, toolText(res))
			assert.Equal(t, 1, out.ReduceRounds, "every answer fits one prompt: one round in either mode")
			assert.Empty(t, out.ReduceHint)
		})
	}
}
