package globalsearch_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// deepRoundsParams is roundsParams with a reduce budget that holds a few
// more candidates, so that at its worst the reduce takes several
// intermediate rounds, each of fewer groups.
func deepRoundsParams(t *testing.T, mode string) gs.Params {
	t.Helper()
	return roundsParams(t, mode, func(r *gs.Request) {
		p := gs.DefaultPrompts()
		skeleton := max(tokens.Estimate(p.Reduce.Skeleton("What rose?")), tokens.Estimate(p.Round.Skeleton("What rose?")))
		budget := skeleton + 480
		r.ReduceTokenBudget = &budget
	})
}

// TestPrepareBoundsReduceSteps: prepare refuses, before any model call and
// recorded failed, a tree plan whose worst-case groups or intermediate
// rounds pass the engine's MaxReduceGroups or MaxReduceRounds
// (docs/contract.md#plan-limits), and names the worst-case groups in
// PreparedRun.ReduceGroups when it fits; single mode makes no group.
func TestPrepareBoundsReduceSteps(t *testing.T) {
	ctx := context.Background()
	probe, _ := newEngine(t, leafNamespace(60), &fakeModel{complete: roundsModel})
	plan, err := probe.Plan(ctx, deepRoundsParams(t, gs.ReduceModeTree))
	require.NoError(t, err)
	w := probe.Report(plan).WorstCase
	groups, rounds := (w.ReduceCalls-gs.ReduceAttempts)/gs.ReduceGroupAttempts, w.ReduceRounds-1
	require.GreaterOrEqual(t, rounds, 2, "the fixture needs intermediate rounds: %+v", w)
	for _, tc := range []struct {
		name                 string
		mode                 string
		maxGroups, maxRounds int
		wantErr              string
		wantGroups           int
	}{
		{"no limit", gs.ReduceModeTree, 0, 0, "", groups},
		{"at both limits", gs.ReduceModeTree, groups, rounds, "", groups},
		{"one group too many", gs.ReduceModeTree, groups - 1, 0, "reduce groups", 0},
		{"one round too many", gs.ReduceModeTree, 0, rounds - 1, "intermediate rounds", 0},
		{"single mode makes none", gs.ReduceModeSingle, 1, 1, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: roundsModel}
			e, s := newEngine(t, leafNamespace(60), model)
			e.MaxReduceGroups, e.MaxReduceRounds = tc.maxGroups, tc.maxRounds
			p := deepRoundsParams(t, tc.mode)
			out, err := e.Prepare(ctx, p)
			assert.Zero(t, model.count(gs.StageMap)+model.count(gs.StageReduce), "prepare calls no model")
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.wantGroups, out.ReduceGroups)
				return
			}
			require.Error(t, err)
			assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err), "%v", err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Contains(t, err.Error(), `reduceMode "single"`, "says what to change")
			res, err := s.Result(ctx, p.QueryID)
			require.NoError(t, err)
			assert.Equal(t, gs.StatusFailed, res.Status, "recorded failed")
		})
	}
}
