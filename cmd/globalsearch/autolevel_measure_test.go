package main

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
)

// TestMeasureAutoLevelOnCarol logs, for a targeted and a generic question
// over the Christmas Carol output searched in place, the map input and
// model calls of the leaf plan and of --level auto at two ceilings (the
// docs/cost.md's table), and checks that each choice is the finest rung whose
// plan is within its ceiling and spends less map input than the leaves.
func TestMeasureAutoLevelOnCarol(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	search := func(t *testing.T, query string, args ...string) globalsearch.Result {
		t.Helper()
		env, out, errOut := testEnv("")
		code := runMain(context.Background(), env, append([]string{"run", "--graphrag", dir, "--query", query,
			"--seed", "1", "--no-cache", "--json"}, args...))
		require.Equal(t, 0, code, errOut.String())
		var res globalsearch.Result
		require.NoError(t, json.Unmarshal(out.Bytes(), &res))
		return res
	}
	mapInput := func(res globalsearch.Result) int {
		total := 0
		for _, b := range res.Diagnostics.Batches {
			total += b.EstimatedTokens
		}
		return total
	}
	for _, query := range []string{"What does Scrooge see at his own grave?", "What are the main themes of the story?"} {
		t.Run(query, func(t *testing.T) {
			leaf := search(t, query)
			t.Logf("leaf: %d summaries, %d batches, %d map input tokens, %d model calls",
				leaf.Diagnostics.SummaryCount, leaf.Diagnostics.BatchCount, mapInput(leaf), leaf.Diagnostics.ModelCalls)
			for _, ceiling := range []int{65000, 55000} {
				res := search(t, query, "--level", "auto", "--max-map-tokens", strconv.Itoa(ceiling))
				choice := res.Diagnostics.AutoLevel
				require.NotNil(t, choice)
				var finest globalsearch.Rung
				for _, r := range choice.Ladder {
					if r.PlannedMapInputTokens > 0 && r.PlannedMapInputTokens <= ceiling {
						finest = r
						break
					}
				}
				assert.Equal(t, finest.Level, choice.LevelUsed, "the finest rung whose plan is within %d", ceiling)
				assert.Equal(t, finest.Summaries, res.Diagnostics.SummaryCount)
				assert.LessOrEqual(t, mapInput(res), ceiling, "the ceiling bounds the plan")
				assert.Less(t, mapInput(res), mapInput(leaf))
				t.Logf("auto %d: level %s, %d summaries, %d batches, %d map input tokens, %d model calls; ladder %+v",
					ceiling, choice.LevelUsed, res.Diagnostics.SummaryCount, res.Diagnostics.BatchCount, mapInput(res), res.Diagnostics.ModelCalls, choice.Ladder)
			}
		})
	}
}
