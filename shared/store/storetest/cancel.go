package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The progress and cancel half of the runs suite
// (docs/contract.md#progress, docs/contract.md#cancel).

func testMapProgress(t *testing.T, s Store) {
	ctx := context.Background()
	_, err := s.MapProgress(ctx, "q-progress")
	assertNotFound(t, err, "progress before a plan")

	plan := samplePlan("q-progress", 4)
	require.NoError(t, s.SavePlan(ctx, plan))
	steps := []struct {
		name string
		do   func() error
		want globalsearch.MapProgress
	}{
		{"a plan without answers", func() error { return nil }, globalsearch.MapProgress{Total: 4}},
		{"two answers", func() error {
			if err := s.SaveMapAnswer(ctx, "q-progress", plan.RunID, sampleAnswer(0, "a")); err != nil {
				return err
			}
			return s.SaveMapAnswer(ctx, "q-progress", plan.RunID, sampleAnswer(2, "b"))
		}, globalsearch.MapProgress{Done: 2, Total: 4}},
		{"an answer saved again counts once", func() error {
			return s.SaveMapAnswer(ctx, "q-progress", plan.RunID, sampleAnswer(2, "b again"))
		}, globalsearch.MapProgress{Done: 2, Total: 4}},
		{"another run's answer is not counted", func() error {
			return s.SaveMapAnswer(ctx, "q-progress", plan.RunID+"-late", sampleAnswer(1, "late"))
		}, globalsearch.MapProgress{Done: 2, Total: 4}},
		{"another query's answer is not counted", func() error {
			return s.SaveMapAnswer(ctx, "q-progress-other", plan.RunID, sampleAnswer(3, "other"))
		}, globalsearch.MapProgress{Done: 2, Total: 4}},
		{"a new plan starts from nothing", func() error {
			next := samplePlan("q-progress", 3)
			next.RunID = "run-next"
			return s.SavePlan(ctx, next)
		}, globalsearch.MapProgress{Total: 3}},
		{"a plan without batches", func() error {
			return s.SavePlan(ctx, samplePlan("q-progress", 0))
		}, globalsearch.MapProgress{}},
	}
	for _, st := range steps {
		require.NoError(t, st.do(), st.name)
		got, err := s.MapProgress(ctx, "q-progress")
		require.NoError(t, err, st.name)
		assert.Equal(t, st.want, got, st.name)
	}
}

// cancelled is the cancelled result of sampleParams(queryID).
func cancelled(queryID string) globalsearch.Result {
	return globalsearch.CancelledResult(sampleParams(queryID), time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
}

func testCancel(t *testing.T, s Store) {
	ctx := context.Background()
	completed := sampleResult("", 2)
	completed.Status = globalsearch.StatusCompleted
	tests := []struct {
		name  string
		setup func(t *testing.T, id string)
		res   func(id string) globalsearch.Result // nil for cancelled(id)
		fails bool
		want  globalsearch.Kind   // of the cancel's error, when it fails
		after globalsearch.Status // the result's status after it; "" for none
	}{
		{name: "a request without a plan", setup: func(t *testing.T, id string) {
			_, _, err := s.CreateRequest(ctx, sampleParams(id), "")
			require.NoError(t, err)
		}, after: globalsearch.StatusCancelled},
		{name: "a planned run", setup: func(t *testing.T, id string) {
			_, _, err := s.CreateRequest(ctx, sampleParams(id), "")
			require.NoError(t, err)
			require.NoError(t, s.SavePlan(ctx, samplePlan(id, 2)))
		}, after: globalsearch.StatusCancelled},
		{name: "a cancelled run, again", setup: func(t *testing.T, id string) {
			require.NoError(t, s.SavePlan(ctx, samplePlan(id, 2)))
			require.NoError(t, s.CancelResult(ctx, cancelled(id), id))
		}, after: globalsearch.StatusCancelled},
		{name: "a finished run", setup: func(t *testing.T, id string) {
			require.NoError(t, s.SavePlan(ctx, samplePlan(id, 2)))
			r := completed
			r.QueryID = id
			require.NoError(t, s.SaveResult(ctx, r, "run-"+id))
		}, fails: true, want: globalsearch.KindConflict, after: globalsearch.StatusCompleted},
		{name: "an unknown id", setup: func(*testing.T, string) {}, fails: true, want: globalsearch.KindNotFound},
		{name: "a run another execution owns", setup: func(t *testing.T, id string) {
			_, _, err := s.CreateRequest(ctx, sampleParams(id), "exec-other")
			require.NoError(t, err)
		}, fails: true, want: globalsearch.KindNotFound},
		{name: "a result that is not cancelled", setup: func(t *testing.T, id string) {
			require.NoError(t, s.SavePlan(ctx, samplePlan(id, 2)))
		}, res: func(id string) globalsearch.Result {
			r := cancelled(id)
			r.Status = globalsearch.StatusFailed
			return r
		}, fails: true, want: globalsearch.KindInvalidInput},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := "q-cancel-" + string(rune('a'+i))
			tc.setup(t, id)
			r := cancelled(id)
			if tc.res != nil {
				r = tc.res(id)
			}
			err := s.CancelResult(ctx, r, id)
			if tc.fails {
				require.Error(t, err)
				assert.Equal(t, tc.want, globalsearch.KindOf(err), "kind of %v", err)
			} else {
				require.NoError(t, err)
			}
			got, err := s.Result(ctx, id)
			if tc.after == "" {
				assertNotFound(t, err, "result after the cancel")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.after, got.Status)
			if tc.after == globalsearch.StatusCancelled {
				assert.Equal(t, cancelled(id), got, "the cancelled result reads as saved")
			}
		})
	}
}

// testCancelIsFinal: once cancelled, no step of the run writes a result
// or a plan: a late reduce (its run), a late prepare failure (no run) and
// a late prepare's plan are all refused, and the result still reads
// cancelled.
func testCancelIsFinal(t *testing.T, s Store) {
	ctx := context.Background()
	const id = "q-cancel-final"
	plan := samplePlan(id, 2)
	require.NoError(t, s.SavePlan(ctx, plan))
	require.NoError(t, s.CancelResult(ctx, cancelled(id), id))
	late := sampleResult(id, 2)
	tests := []struct {
		name  string
		write func() error
	}{
		{"a late reduce of the run", func() error { return s.SaveResult(ctx, late, plan.RunID) }},
		{"a late failure without a run", func() error { return s.SaveResult(ctx, late, "") }},
		{"a late plan of the run", func() error { return s.SavePlan(ctx, samplePlan(id, 3)) }},
		{"a late plan of another run", func() error {
			other := samplePlan(id, 3)
			other.RunID = "run-late"
			return s.SavePlan(ctx, other)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertNotFound(t, tc.write(), tc.name)
			got, err := s.Result(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, cancelled(id), got)
		})
	}
	p, err := s.PlanMeta(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, plan.RunID, p.RunID, "the late plans did not replace the cancelled run's")
	assert.Len(t, p.Batches, 2, "the late plans did not replace the cancelled run's")
}
