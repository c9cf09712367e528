package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
)

// --selection dynamic, --rating-threshold and --rating-model reach the
// request (docs/contract.md#dynamic-selection); a bad value is a usage
// error before anything is read.
func TestSelectionFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"dynamic", []string{"--selection", "dynamic"}, 0, "dynamic selection: 3 communities rated in 2 rating calls (2 rounds), 1 community selected", ""},
		{"dynamic with a rating model", []string{"--selection", "dynamic", "--rating-model", "offline"}, 0, "1 community selected", ""},
		{"threshold 1", []string{"--selection", "dynamic", "--rating-threshold", "1"}, 0, "dynamic selection:", ""},
		{"level prints no selection line", []string{"--selection", "level"}, 0, "status completed", ""},
		{"unknown selection", []string{"--selection", "auto"}, 2, "", `selection must be "level" or "dynamic"`},
		{"threshold out of range", []string{"--selection", "dynamic", "--rating-threshold", "9"}, 2, "", "ratingThreshold must be an integer from 1 to 5"},
		{"threshold without dynamic", []string{"--rating-threshold", "3"}, 2, "", `ratingThreshold applies only to selection "dynamic"`},
		{"rating model without dynamic", []string{"--rating-model", "offline"}, 2, "", "--rating-model rates communities only with --selection dynamic"},
		{"dynamic with a level", []string{"--selection", "dynamic", "--level", "1"}, 2, "", `selection "dynamic" chooses the communities itself`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeIndex(t, smallIndex())
			env, out, errOut := testEnv("")
			args := append([]string{"run", "--index", path, "--query", "How did solar power change the harbour economy?", "--no-cache"}, tc.args...)
			code := runMain(context.Background(), env, args)
			require.Equal(t, tc.wantCode, code, errOut.String())
			assert.Contains(t, out.String(), tc.wantOut)
			assert.Contains(t, errOut.String(), tc.wantErr)
			if tc.name == "level prints no selection line" {
				assert.NotContains(t, out.String(), "dynamic selection")
			}
		})
	}
}

// plan --selection dynamic calls nothing and prints the worst case the
// ceilings hold it to before rating: the most rating calls, then one map
// batch and the reduce (docs/contract.md#worst-case).
func TestPlanDynamicSelection(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "How did solar power change?", "--selection", "dynamic", "--json"})
	require.Equal(t, 0, code, errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	assert.Equal(t, 2, plan.SummaryCount, "every leaf")
	assert.Equal(t, 4, plan.Selection.MostRatingCalls, "two rounds of one batch, twice each")
	assert.Equal(t, globalsearch.WorstCase{RatingCalls: 4, MapCalls: 2, ReduceCalls: 2}, plan.WorstCase)
	assert.Equal(t, plan.WorstCase.Calls(), plan.MaxModelCalls)
	assert.Equal(t, globalsearch.ModeInline, plan.MapMode)
}

// docs/dynamic-selection.md's figures of dynamic selection on the
// Christmas Carol index are computed again here: a change that moves one
// fails until the doc says the new figure.
func TestREADMEDynamicSelectionFigures(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	prose := docProse(t, "docs/dynamic-selection.md")
	for _, q := range []string{"Who is Tiny Tim?", "What are the main themes of the story?"} {
		t.Run(q, func(t *testing.T) {
			env, out, errOut := testEnv("")
			code := runMain(context.Background(), env, []string{"run", "--graphrag", dir, "--query", q, "--selection", "dynamic", "--no-shuffle", "--no-cache", "--json"})
			require.Equal(t, 0, code, errOut.String())
			var res globalsearch.Result
			require.NoError(t, json.Unmarshal(out.Bytes(), &res))
			s := res.Diagnostics.Selection
			row := fmt.Sprintf(`\| %s \| ([\d,]+) \| (\d+) \| ([\d,]+) \| ([\d,]+) \| (\d+) \| [\d.]+%% \| (\d+) \| (\d+) for (\d+) \|`, strings.ReplaceAll(q, "?", `\?`))
			assert.Equal(t, []int{s.LeafMapInputTokens, s.LeafMapBatches, s.RatingInputTokens, s.MapInputTokens, s.MapBatches, res.Diagnostics.ModelCalls, s.RatingCalls, s.Rated},
				readmeNumbers(t, prose, row))
			share := fmt.Sprintf(`\| %s \|[^|]+\|[^|]+\|[^|]+\|[^|]+\|[^|]+\| %.1f%% \|`, strings.ReplaceAll(q, "?", `\?`),
				100*float64(s.InputTokens())/float64(s.LeafMapInputTokens))
			assert.Regexp(t, share, prose, "the share counts the rating input")
		})
	}
}
