package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The plans of the runs half of the suite.

func samplePlan(queryID string, n int) globalsearch.Plan {
	p := globalsearch.Plan{
		RunID:        "run-" + queryID,
		Params:       sampleParams(queryID),
		SummaryCount: n * 2,
		IndexNotes:   globalsearch.IndexNotes{OrphanClaims: 1, MissingChunks: 2, AvailableLevels: []int{0, 1, 2}},
		Coverage: globalsearch.Coverage{
			CommunitiesSelected: n * 2, CommunitiesInNamespace: n*2 + 5, Claims: 3 * n, Excerpts: 2 * n, Documents: 1,
		},
		CreatedAt: time.Date(2025, 3, 4, 5, 6, 7, 8000, time.UTC),
		// Reduce's timeline reads prepare's end from the plan (docs/contract.md#timeline).
		PlannedAt: time.Date(2025, 3, 4, 5, 6, 8, 9000, time.UTC),
		Batches:   []globalsearch.Batch{},
	}
	p.EmptyNamespace, p.AvailableNamespaces = true, []string{"a", "b"}
	// communityLevel "auto" and its choice, with the ceilings it and
	// maxCostUsd set, read back as saved (docs/contract.md#auto-level).
	p.Params.CommunityLevel, p.Params.MaxMapInputTokens, p.Params.MaxCostUSD = globalsearch.AutoLevel, 40000, 0.25
	p.AutoLevel = &globalsearch.LevelChoice{MaxMapInputTokens: 40000, LevelUsed: 1, Ladder: []globalsearch.Rung{
		{Level: globalsearch.LeafLevel, Summaries: 3 * n, MapInputTokens: 50000}, {Level: 1, Summaries: 2 * n, MapInputTokens: 39000},
	}}
	for i := range n {
		p.Batches = append(p.Batches, globalsearch.Batch{
			RunID:           p.RunID,
			Index:           i,
			CommunityIDs:    []string{fmt.Sprintf("c%d", 2*i), fmt.Sprintf("c%d", 2*i+1)},
			EstimatedTokens: 100 + i,
			Content:         fmt.Sprintf("[Community ID: c%d | summary part 1]\nbatch %d text", 2*i, i),
			// Reduce reports usage from these (docs/contract.md#usage), so
			// the metadata read keeps them too.
			ASCIICodePoints: 300 + i, NonASCIICodePoints: 40 + i,
			// Reduce resolves citations and counts cited documents from
			// these, so the metadata read keeps them.
			Sources: []globalsearch.Sources{
				{CommunityID: fmt.Sprintf("c%d", 2*i), ClaimIDs: []string{fmt.Sprintf("cl%d", i)}, ChunkIDs: []string{"ch1", "ch2"}, DocumentIDs: []string{"doc-1"}},
				{CommunityID: fmt.Sprintf("c%d", 2*i+1), Truncated: true},
			},
			Centrality: map[string]float64{fmt.Sprintf("c%d", 2*i): 8.5, fmt.Sprintf("c%d", 2*i+1): float64(i)},
		})
	}
	return p
}

func testPlanRoundTrip(t *testing.T, s Store) {
	ctx := context.Background()
	want := samplePlan("q-plan", 12)
	require.NoError(t, s.SavePlan(ctx, want))
	got, err := s.Plan(ctx, "q-plan")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	for i, b := range want.Batches {
		one, err := s.Batch(ctx, "q-plan", i)
		require.NoError(t, err)
		assert.Equal(t, b, one, "batch %d", i)
	}
	req, err := s.Request(ctx, "q-plan")
	require.NoError(t, err)
	assert.Equal(t, want.Params, req, "a saved plan stores its request")

	// Saving the same plan again (a retried prepare) changes nothing.
	require.NoError(t, s.SavePlan(ctx, want))
	got, err = s.Plan(ctx, "q-plan")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// A dynamic selection's report is kept with its plan
	// (docs/contract.md#dynamic-selection).
	dynamic := samplePlan("q-plan-dynamic", 2)
	dynamic.Params.Selection, dynamic.Params.RatingThreshold = globalsearch.SelectionDynamic, 3
	dynamic.Selection = &globalsearch.SelectionReport{Threshold: 3, Rounds: 2, Rated: 40, RatingCalls: 3, NotRated: 1,
		UnknownIDs: 1, Selected: 4, MostRatingCalls: 8, MapInputTokens: 500, MapBatches: 2, LeafMapInputTokens: 9000, LeafMapBatches: 7}
	require.NoError(t, s.SavePlan(ctx, dynamic))
	got, err = s.Plan(ctx, "q-plan-dynamic")
	require.NoError(t, err)
	assert.Equal(t, dynamic, got)
}

func testPlanMeta(t *testing.T, s Store) {
	ctx := context.Background()
	_, err := s.PlanMeta(ctx, "q-meta")
	assertNotFound(t, err, "metadata of a plan never saved")

	saved := samplePlan("q-meta", 12)
	require.NoError(t, s.SavePlan(ctx, saved))
	want := samplePlan("q-meta", 12)
	for i := range want.Batches {
		want.Batches[i].Content = ""
	}
	got, err := s.PlanMeta(ctx, "q-meta")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// After a smaller plan replaces it, only the new batches are read.
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-meta", 3)))
	got, err = s.PlanMeta(ctx, "q-meta")
	require.NoError(t, err)
	assert.Len(t, got.Batches, 3)
}

// testMutationIsolation changes every slice and map a caller handed in or got back
// and checks that the store still returns what was saved: a store that
// shares memory with its callers would let one search corrupt another.
func testMutationIsolation(t *testing.T, s Store) {
	ctx := context.Background()
	records := sampleRecords()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns-mut", records))
	plan := samplePlan("q-mut", 3)
	require.NoError(t, s.SavePlan(ctx, plan))

	records.Summaries[0].Summary = "changed after save"
	records.Claims[1].SourceChunkIDs[0] = "changed"
	records.Chunks[0].Text = "changed after save"
	plan.Batches[0].CommunityIDs[0] = "changed"
	plan.Batches[0].Centrality["c0"] = -1
	plan.Batches[1].Content = "changed after save"
	plan.AvailableLevels[0] = 9
	plan.AvailableNamespaces[0] = "changed"

	sums, err := s.Summaries(ctx, "ns-mut")
	require.NoError(t, err)
	sums[0].Summary = "changed after read"
	claims, err := s.Claims(ctx, "ns-mut")
	require.NoError(t, err)
	for i := range claims {
		if len(claims[i].SourceChunkIDs) > 0 {
			claims[i].SourceChunkIDs[0] = "changed after read"
		}
	}
	chunks, err := s.Chunks(ctx, "ns-mut", []string{"ch1"})
	require.NoError(t, err)
	chunks[0].Text = "changed after read"
	for _, read := range []func(context.Context, string) (globalsearch.Plan, error){s.Plan, s.PlanMeta} {
		got, err := read(ctx, "q-mut")
		require.NoError(t, err)
		got.Batches[0].CommunityIDs[0] = "changed after read"
		got.Batches[0].Centrality["c0"] = -2
		got.AvailableLevels[0] = 8
		got.AvailableNamespaces[0] = "changed after read"
	}
	b, err := s.Batch(ctx, "q-mut", 0)
	require.NoError(t, err)
	b.CommunityIDs[0] = "changed after read"
	b.Centrality["c0"] = -3

	AssertNamespace(t, s, "ns-mut", sampleRecords())
	got, err := s.Plan(ctx, "q-mut")
	require.NoError(t, err)
	assert.Equal(t, samplePlan("q-mut", 3), got)
	one, err := s.Batch(ctx, "q-mut", 0)
	require.NoError(t, err)
	assert.Equal(t, samplePlan("q-mut", 3).Batches[0], one)
}

func testPlanReplaced(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-re", 12)))
	shorter := samplePlan("q-re", 3)
	shorter.RunID = "run-2"
	for i := range shorter.Batches {
		shorter.Batches[i].RunID = shorter.RunID
	}
	shorter.Params.Query = "replaced"
	shorter.Batches[1].Content = "replaced content"
	require.NoError(t, s.SavePlan(ctx, shorter))
	got, err := s.Plan(ctx, "q-re")
	require.NoError(t, err)
	assert.Equal(t, shorter, got)
	_, err = s.Batch(ctx, "q-re", 5)
	assertNotFound(t, err, "batch of the previous, longer plan")
	b, err := s.Batch(ctx, "q-re", 1)
	require.NoError(t, err)
	assert.Equal(t, "replaced content", b.Content)
}

func testPlanEmpty(t *testing.T, s Store) {
	ctx := context.Background()
	want := samplePlan("q-empty", 0)
	want.AvailableLevels = nil
	require.NoError(t, s.SavePlan(ctx, want))
	got, err := s.Plan(ctx, "q-empty")
	require.NoError(t, err)
	assert.Empty(t, got.Batches)
	got.Batches = want.Batches
	assert.Equal(t, want, got)
	_, err = s.Batch(ctx, "q-empty", 0)
	assertNotFound(t, err, "batch of a plan without batches")
}

// testPlanResavedTexts saves one run twice with other batch texts (a
// prepare retried after the index changed): every read has the second
// save's texts, none the first's (docs/contract.md#payloads-bucket).
func testPlanResavedTexts(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-texts", 4)))
	again := samplePlan("q-texts", 3)
	for i := range again.Batches {
		again.Batches[i].Content = fmt.Sprintf("second save, batch %d, a longer text than the first", i)
	}
	again.Batches[2].Content = ""
	require.NoError(t, s.SavePlan(ctx, again))
	got, err := s.Plan(ctx, "q-texts")
	require.NoError(t, err)
	assert.Equal(t, again, got)
	for i, want := range again.Batches {
		b, err := s.Batch(ctx, "q-texts", i)
		require.NoError(t, err)
		assert.Equal(t, want.Content, b.Content, "batch %d", i)
	}
	_, err = s.Batch(ctx, "q-texts", 3)
	assertNotFound(t, err, "a batch past the second save's")
}

// A plan that continues its run (a dynamic selection's plan after its
// rating rounds) is saved only while that run is the current one: the
// steps of an earlier run never replace a later prepare of the request
// (docs/contract.md#selection-steps).
func testPlanContinuesItsRunOnly(t *testing.T, s Store) {
	ctx := context.Background()
	tests := []struct {
		name        string
		queryID     string
		laterRun    bool // another prepare starts a run before the continuing save
		wantRefused bool
	}{
		{"its run is current", "q-cont-current", false, false},
		{"a later prepare started another run", "q-cont-replaced", true, true},
		{"no run was started", "q-cont-none", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			started := samplePlan(tc.queryID, 0)
			if tc.name != "no run was started" {
				require.NoError(t, s.SavePlan(ctx, started))
			}
			current := started
			if tc.laterRun {
				current = samplePlan(tc.queryID, 2)
				current.RunID = "run-later"
				for i := range current.Batches {
					current.Batches[i].RunID = current.RunID
				}
				require.NoError(t, s.SavePlan(ctx, current))
			}
			cont := samplePlan(tc.queryID, 3)
			cont.Continues = true
			err := s.SavePlan(ctx, cont)
			if !tc.wantRefused {
				require.NoError(t, err)
				got, err := s.Plan(ctx, tc.queryID)
				require.NoError(t, err)
				cont.Continues = false
				assert.Equal(t, cont, got)
				return
			}
			assertNotFound(t, err, "a continuing save of a run that is not current")
			got, err := s.Plan(ctx, tc.queryID)
			if tc.name == "no run was started" {
				assertNotFound(t, err, "nothing was saved")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, current, got, "the later run stays whole")
		})
	}
}
