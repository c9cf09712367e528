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
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func TestPlanJSON(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "What changed?", "--seed", "3", "--json"})
	require.Equal(t, 0, code, errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	assert.Equal(t, 2, plan.SummaryCount, "the two leaves of the file's own namespace")
	assert.Equal(t, 1, plan.BatchCount)
	assert.Equal(t, 7488, plan.MapPromptBudget)
	assert.Equal(t, 6976, plan.ReducePromptBudget)
	assert.Equal(t, int64(3), plan.ShuffleSeed)
	assert.Equal(t, 4, plan.MaxModelCalls)
	assert.Contains(t, plan.MapSkeleton, "What changed?")
	require.Len(t, plan.Batches, 1)
	assert.Equal(t, tokens.Estimate(plan.MapSkeleton+"\n"+plan.Batches[0].Content), plan.Batches[0].EstimatedTokens)
	assert.Equal(t, plan.Batches[0].EstimatedTokens, plan.EstimatedMapInputTokens)
	assert.Contains(t, plan.Batches[0].Content, "- (c1) By 2030 solar met half of demand.")
	assert.Equal(t, globalsearch.Coverage{CommunitiesSelected: 2, CommunitiesInNamespace: 3, Claims: 1, Excerpts: 1}, plan.Diagnostics.Coverage)
	var raw struct {
		Diagnostics struct {
			Coverage map[string]any `json:"coverage"`
		} `json:"diagnostics"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
	assert.NotContains(t, raw.Diagnostics.Coverage, "mapAnswers", "a plan has no map answers yet")
	assert.NotContains(t, raw.Diagnostics.Coverage, "citedCommunities")

	env, out, errOut = testEnv("")
	code = runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "What changed?", "--seed", "3"})
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "\ncoverage: 2 of 3 communities, 1 claim, 1 excerpt (the index names no documents)\n")
}

// TestPlanReportsAWSMode: plan says how a deployment's state machine would
// run the plan: inline within the inline Map's history budget, distributed
// past it (docs/contract.md#state-machine).
func TestPlanReportsAWSMode(t *testing.T) {
	long := indexfile.File{Namespace: "long", Records: globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "c1", Summary: strings.Repeat("Shared trend. ", 20000)},
	}}}
	cases := []struct {
		name     string
		index    indexfile.File
		args     []string
		wantMode string
		wantLine string
	}{
		{"one batch", smallIndex(), nil, workflow.ModeInline, "on AWS: inline Map"},
		{"past the inline budget", long, []string{"--map-budget", "500", "--map-reserve", "0", "--no-shuffle", "--max-model-calls", "2000"}, workflow.ModeDistributed, "on AWS: distributed Map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeIndex(t, tc.index)
			base := append([]string{"plan", "--index", path, "--query", "q"}, tc.args...)
			env, out, errOut := testEnv("")
			require.Equal(t, 0, runMain(context.Background(), env, append(base, "--json")), errOut.String())
			var plan planOutput
			require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
			assert.Equal(t, tc.wantMode, plan.MapMode, "%d batches", plan.BatchCount)

			env, out, errOut = testEnv("")
			require.Equal(t, 0, runMain(context.Background(), env, base), errOut.String())
			assert.Contains(t, out.String(), tc.wantLine)
		})
	}
}

// TestNothingToSearchExitsThree: a level that does not exist ends
// no_results with the levels that do and exits 3, in run and plan, text
// and JSON; a search that read summaries and found nothing relevant ends
// no_results too, and exits 0.
func TestNothingToSearchExitsThree(t *testing.T) {
	path := writeIndex(t, smallIndex())
	const noLevel = "globalsearch %s: nothing to search: no summary at level 5; levels that exist: [0 1]\n"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"plan, no such level", []string{"plan", "--level", "5"}, 3, "levels that exist: [0 1]", fmt.Sprintf(noLevel, "plan")},
		{"plan --json, no such level", []string{"plan", "--level", "5", "--json"}, 3, `"availableLevels": [`, fmt.Sprintf(noLevel, "plan")},
		{"run, no such level", []string{"run", "--level", "5"}, 3, "status no_results", fmt.Sprintf(noLevel, "run")},
		{"run --json, no such level", []string{"run", "--level", "5", "--json"}, 3, `"status": "no_results"`, fmt.Sprintf(noLevel, "run")},
		{"run, nothing relevant", []string{"run", "--query", "zebra xylophone quasar"}, 0, "status no_results", ""},
		{"run --json, nothing relevant", []string{"run", "--query", "zebra xylophone quasar", "--json"}, 0, `"status": "no_results"`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			args := append([]string{tc.args[0], "--index", path, "--query", "How did solar power change?", "--no-cache"}, tc.args[1:]...)
			require.Equal(t, tc.wantCode, runMain(context.Background(), env, args), errOut.String())
			assert.Contains(t, out.String(), tc.wantOut)
			assert.Equal(t, tc.wantErr, errOut.String())
		})
	}
}

// docs/contract.md#plan-limits in process: a plan whose map texts exceed the ceiling is
// refused with the numbers; the flag sets the ceiling.
func TestPlanMapTextCeiling(t *testing.T) {
	f := indexfile.File{Namespace: "amp", Records: globalsearch.Records{
		Chunks: []globalsearch.Chunk{{ID: "big", Text: strings.Repeat("coal ", 20_000)}},
	}}
	for i := range 20 {
		id := fmt.Sprintf("c%02d", i)
		f.Summaries = append(f.Summaries, globalsearch.Summary{ID: id, Summary: "A leaf."})
		f.Claims = append(f.Claims, globalsearch.Claim{ID: "k" + id, CommunityID: id, Subject: "S", SourceChunkIDs: []string{"big"}})
	}
	path := writeIndex(t, f)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"default ceiling", nil, 0, ""},
		{"1 MiB ceiling", []string{"--max-map-text-mb", "1"}, 1, "but this deployment plans at most 1048576 (the map-text ceiling of 1048576 bytes)"},
		{"zero", []string{"--max-map-text-mb", "0"}, 2, "--max-map-text-mb must be a positive number of MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, append([]string{"plan", "--index", path, "--query", "q"}, tc.args...))
			assert.Equal(t, tc.wantCode, code, errOut.String())
			assert.Contains(t, errOut.String(), tc.wantErr)
		})
	}
}
