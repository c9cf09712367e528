package globalsearch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A final call that fails both attempts after rounds fails the run and
// still reports the rounds and what reached them.
func TestTreeFinalCallFailing(t *testing.T) {
	model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageReduce && req.ResponseType != gs.IntermediateResponseType {
			return gs.ModelResponse{}, errors.New("final reduce down")
		}
		return roundsModel(req, call)
	}}
	e, _ := newEngine(t, leafNamespace(60), model)
	res, err := e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.Error(t, err)
	assert.Equal(t, gs.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "final reduce down")
	d := res.Diagnostics.Reduce
	require.GreaterOrEqual(t, len(d.PerRound), 2)
	last := d.PerRound[len(d.PerRound)-1]
	assert.Equal(t, gs.ReduceAttempts, last.ModelCalls, "both final attempts counted")
	assert.Equal(t, len(d.PerRound), d.Rounds)
	assert.Equal(t, 60, res.Diagnostics.Coverage.MapAnswers.ReachedReduce)
}

// An intermediate answer that cites nothing is shown to the next round
// with every id its group saw, as a map answer citing nothing shows its
// batch's.
func TestTreeUncitedAnswerNamesItsGroup(t *testing.T) {
	model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageReduce && req.ResponseType == gs.IntermediateResponseType {
			return text(`{"answer":"Joined, citing nothing."}`)
		}
		return roundsModel(req, call)
	}}
	e, _ := newEngine(t, leafNamespace(20), model)
	res, err := e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.Diagnostics.Reduce.Rounds, 2)
	seen := map[string]bool{}
	for _, a := range res.SelectedMapAnswers {
		assert.Greater(t, len(a.CommunityIDs), 1, "a group's ids: %v", a.CommunityIDs)
		for _, id := range a.CommunityIDs {
			seen[id] = true
		}
	}
	assert.NotEmpty(t, seen)
}

// In single mode the round step plans nothing and writes nothing, and a
// search makes no intermediate call.
func TestSingleModeHasNoRounds(t *testing.T) {
	ctx := context.Background()
	model := &fakeModel{complete: roundsModel}
	e, s := newEngine(t, leafNamespace(60), model)
	p := roundsParams(t, gs.ReduceModeSingle, nil)
	res, err := e.Search(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, 1, model.count(gs.StageReduce))
	assert.Equal(t, 1, res.Diagnostics.Reduce.Rounds)
	plan, err := s.PlanMeta(ctx, p.QueryID)
	require.NoError(t, err)
	round, err := e.PlanReduceRound(ctx, p.QueryID, plan.RunID, nil)
	require.NoError(t, err)
	assert.Equal(t, gs.ReduceRound{}, round)
	answers, err := s.GroupAnswers(ctx, p.QueryID, plan.RunID)
	require.NoError(t, err)
	assert.Empty(t, answers)
}

// maxCostUsd holds the rounds' worst case too: the groups' calls are
// priced as reduce calls.
func TestTreeWorstCaseHoldsTheCostCeiling(t *testing.T) {
	model := &fakeModel{complete: roundsModel}
	e, _ := newEngine(t, leafNamespace(60), model)
	e.Prices = testPrices
	plan, err := e.Plan(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.NoError(t, err)
	tree := e.Report(plan).WorstCase
	single, err := e.Plan(context.Background(), roundsParams(t, gs.ReduceModeSingle, nil))
	require.NoError(t, err)
	once := e.Report(single).WorstCase
	require.Greater(t, tree.ReduceUSD, once.ReduceUSD, "the rounds cost")
	assert.InDelta(t, once.ReduceUSD*float64(tree.ReduceCalls)/float64(gs.ReduceAttempts), tree.ReduceUSD, 1e-9,
		"each group call is priced as a full reduce call")
	below := tree.CostUSD() * 0.999
	_, err = e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, func(r *gs.Request) { r.MaxCostUSD = &below }))
	assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err), "%v", err)
	assert.Zero(t, model.count(gs.StageMap), "refused before any model call")
}

// A prompts directory may replace the intermediate prompt, held to the
// reduce prompt's rules without a response type.
func TestRoundPromptFile(t *testing.T) {
	embedded, err := os.ReadFile(filepath.Join("prompts", gs.ReduceRoundPromptFile))
	require.NoError(t, err)
	round := string(embedded)
	tests := []struct {
		name, text, wantErr string
	}{
		{"replaced", "Own round prompt.\n" + round, ""},
		{"a response type is refused", "{{response_type}}\n" + round, `unknown placeholder "{{response_type}}"`},
		{"no content", "Q {{query}} {\"answer\"}", "lacks the placeholder {{content}}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gs.LoadPrompts(writePrompts(t, map[string]string{gs.ReduceRoundPromptFile: tc.text}))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), gs.ReduceRoundPromptFile)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(p.Round.Skeleton("q"), "Own round prompt."))
			assert.Equal(t, gs.DefaultPrompts().Reduce, p.Reduce, "the others stay")
		})
	}
}

// After rounds the timeline's reduce stage starts where the map ended, so
// it holds the rounds' time.
func TestTreeTimelineHoldsTheRounds(t *testing.T) {
	model := &fakeModel{complete: roundsModel}
	e, _ := newEngine(t, leafNamespace(60), model)
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	e.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tick = tick.Add(time.Second)
		return tick
	}
	res, err := e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.NoError(t, err)
	tl := res.Diagnostics.Timeline
	require.NotNil(t, tl.ReduceSeconds)
	require.NotNil(t, tl.MapSeconds)
	// Every step reads the clock: the rounds' steps put many seconds
	// between the map's end and the final call's.
	assert.Greater(t, *tl.ReduceSeconds, 3.0)
	assert.InDelta(t, res.Diagnostics.FinishedAt.Sub(res.Diagnostics.StartedAt).Seconds(),
		*tl.PrepareSeconds+(*tl.FirstMapCallSeconds-*tl.PrepareSeconds)+*tl.MapSeconds+*tl.ReduceSeconds, 2.0)
}
