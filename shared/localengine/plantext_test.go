package localengine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
)

// SeedText names the batches' order: stable batching's seed, no shuffle,
// or the shuffle seed (docs/contract.md#request).
func TestSeedText(t *testing.T) {
	tests := []struct {
		name string
		p    globalsearch.Params
		want string
	}{
		{"stable", globalsearch.Params{Batching: globalsearch.BatchingStable, Shuffle: true}, "stable batching, seed 7"},
		{"no shuffle", globalsearch.Params{}, "no shuffle"},
		{"shuffled", globalsearch.Params{Shuffle: true}, "seed 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, localengine.SeedText(7, tc.p))
		})
	}
}

// WritePlan prints the counts in the singular or plural, each batch's
// communities escaped for a terminal, the auto ladder with its chosen rung
// marked, and the notes of a plan with nothing to search.
func TestWritePlan(t *testing.T) {
	g0 := globalsearch.GraphRAGLevel(0)
	tests := []struct {
		name       string
		out        globalsearch.PlanReport
		p          globalsearch.Params
		want, miss []string
	}{
		{
			name: "batches",
			out: globalsearch.PlanReport{SummaryCount: 1, BatchCount: 1, MapPromptBudget: 10, ReducePromptBudget: 20, Tokenizer: "o200k",
				Batches: []globalsearch.PlanBatch{{EstimatedTokens: 5, CommunityIDs: []string{"a\x1b[2J", "b"}}}, MaxModelCalls: 2, ModelCallCeiling: 9},
			p: globalsearch.Params{Shuffle: true},
			want: []string{
				"1 summary -> 1 map batch (map prompt budget 10, reduce prompt budget 20, seed 0)\n",
				"tokens counted with o200k (batch tokens bound the prompt sent)\n",
				"  batch 0: 5 tokens, communities a\\x1b[2J, b\n",
				"at most 2 model calls (ceiling 9)\n",
			},
			miss: []string{"\x1b", "level auto", "estimated cost", "dynamic selection"},
		},
		{
			name: "auto level and cost",
			out: globalsearch.PlanReport{SummaryCount: 2, Cost: &globalsearch.PlanCost{Map: 0.5, Reduce: 0.25, Total: 0.75, WorstCase: 2},
				Diagnostics: globalsearch.PlanDiagnostics{AutoLevel: &globalsearch.LevelChoice{MaxMapInputTokens: 100, LevelUsed: g0, Ladder: []globalsearch.Rung{
					{Level: globalsearch.LeafLevel, Summaries: 3, MapInputTokens: 300},
					{Level: g0, Summaries: 1, MapInputTokens: 50, PlannedMapInputTokens: 60},
				}}}},
			want: []string{
				"2 summaries -> 0 map batches",
				"level auto under 100 map input tokens: level graphrag:0\n",
				"   leaf       3 summaries, 300 tokens (every leaf)\n",
				" * graphrag:0 1 summary, 50 tokens (level 0 and the leaves above it; packed, 60 tokens)\n",
				"estimated cost at most ~$0.7500 (one attempt per call: map $0.5000, reduce $0.2500); with every retry $2.0000\n",
			},
		},
		{
			name: "nothing to search",
			out:  globalsearch.PlanReport{IndexNotes: globalsearch.IndexNotes{AvailableLevels: []int{0, 1}, EmptyNamespace: true, AvailableNamespaces: []string{"b"}}},
			p:    globalsearch.Params{Namespace: "a", CommunityLevel: g0},
			want: []string{"no summary at level graphrag:0; levels that exist: [0 1]\n", globalsearch.EmptyNamespaceNote("a", []string{"b"})},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			localengine.WritePlan(&w, tc.out, tc.p)
			for _, s := range tc.want {
				assert.Contains(t, w.String(), s)
			}
			for _, s := range tc.miss {
				assert.NotContains(t, w.String(), s)
			}
		})
	}
}
