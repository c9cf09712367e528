package globalsearch_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// switchModel answers everything until failMap is set, then fails every map
// call; onMap, when set, runs inside each map call before it answers.
type switchModel struct {
	failMap atomic.Bool
	onMap   func()
	calls   atomic.Int32
}

func (m *switchModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	m.calls.Add(1)
	if req.Stage == gs.StageMap {
		if m.failMap.Load() {
			return gs.ModelResponse{}, gs.Errorf(gs.KindModel, "model unavailable")
		}
		if m.onMap != nil {
			m.onMap()
		}
	}
	return answerEverything(req, 0)
}

// storedRun is everything the runs store holds for a query id.
type storedRun struct {
	request gs.Params
	plan    gs.Plan
	result  gs.Result
	answers []gs.MapAnswer
}

func readRun(t *testing.T, s *memstore.Store, queryID string) storedRun {
	t.Helper()
	ctx := context.Background()
	var r storedRun
	var err error
	r.request, err = s.Request(ctx, queryID)
	require.NoError(t, err)
	r.plan, err = s.Plan(ctx, queryID)
	require.NoError(t, err)
	r.result, err = s.Result(ctx, queryID)
	require.NoError(t, err)
	r.answers, err = s.MapAnswers(ctx, queryID, r.plan.RunID)
	require.NoError(t, err)
	return r
}

// TestSearchAgainAfterIndexChange is issue 9 finding 1: the same query id
// searched again after the index changed, with every map call failing, must
// fail; the first run's answers must not make it complete.
func TestSearchAgainAfterIndexChange(t *testing.T) {
	ctx := context.Background()
	model := &switchModel{}
	e, s := newEngine(t, leafNamespace(3), model)
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.QueryID = "nightly" })
	first, err := e.Search(ctx, p)
	require.NoError(t, err)
	require.Equal(t, gs.StatusCompleted, first.Status)

	next := leafNamespace(3)
	next.Summaries[1].Summary = "Rewritten: " + summaryText
	require.NoError(t, s.ReplaceNamespace(ctx, "default", next))
	model.failMap.Store(true)

	res, err := e.Search(ctx, p)
	require.Error(t, err)
	assert.Equal(t, gs.KindAllBatchesFailed, gs.KindOf(err))
	assert.Equal(t, gs.StatusFailed, res.Status)
	assert.Equal(t, 3, res.FailedMapBatches)
	assert.Empty(t, res.SelectedMapAnswers)
	assert.Equal(t, gs.StageUsage{ModelCalls: 6}, res.Diagnostics.Map, "only this run's calls are counted")
	stored, err := s.Result(ctx, "nightly")
	require.NoError(t, err)
	assert.Equal(t, gs.StatusFailed, stored.Status)
}

// TestPrepareSameIDDifferentRequest is issue 9 finding 2: an id that names
// a request is invalid input for a different one, and nothing stored
// changes; the same request (a seed it did not choose aside) runs again.
func TestPrepareSameIDDifferentRequest(t *testing.T) {
	ctx := context.Background()
	e, s := newEngine(t, leafNamespace(3), &switchModel{})
	parse := func(body string) gs.Params {
		p, err := gs.ParseRequest([]byte(body), gs.SpecDefaults)
		require.NoError(t, err)
		return p
	}
	_, err := e.Search(ctx, parse(`{"query":"What changed?","queryId":"weekly"}`))
	require.NoError(t, err)
	before := readRun(t, s, "weekly")

	tests := []struct {
		name string
		body string
	}{
		{"another query", `{"query":"What stayed?","queryId":"weekly"}`},
		{"another level", `{"query":"What changed?","queryId":"weekly","communityLevel":1}`},
		{"an explicit seed that differs", `{"query":"What changed?","queryId":"weekly","shuffleSeed":` + itoa(before.request.ShuffleSeed+1) + `}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []struct {
				name string
				call func(gs.Params) error
			}{
				{"prepare", func(p gs.Params) error { _, err := e.Prepare(ctx, p); return err }},
				{"search", func(p gs.Params) error { _, err := e.Search(ctx, p); return err }},
			} {
				err := step.call(parse(tc.body))
				require.Error(t, err, step.name)
				assert.Equal(t, gs.KindConflict, gs.KindOf(err), step.name)
				assert.EqualError(t, err, "query id weekly already names a different request", step.name)
				assert.Equal(t, before, readRun(t, s, "weekly"), "%s: nothing stored changed", step.name)
			}
		})
	}

	t.Run("same request without a seed runs again with the stored seed", func(t *testing.T) {
		again, err := e.Search(ctx, parse(`{"query":"What changed?","queryId":"weekly"}`))
		require.NoError(t, err)
		assert.Equal(t, gs.StatusCompleted, again.Status)
		assert.Equal(t, before.request.ShuffleSeed, again.Diagnostics.ShuffleSeed)
		after := readRun(t, s, "weekly")
		assert.NotEqual(t, before.plan.RunID, after.plan.RunID, "a new run")
		assert.Equal(t, before.request, after.request)
	})
}

func itoa(n int64) string { return fmt.Sprint(n) }

// TestLateWritersOfAnEarlierRun: tasks of a run that a new plan of the same
// query id replaced must not reach the new run (docs/contract.md#query-ids).
func TestLateWritersOfAnEarlierRun(t *testing.T) {
	ctx := context.Background()
	model := &switchModel{}
	e, s := newEngine(t, leafNamespace(2), model)
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.QueryID = "late" })
	old, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	_, err = e.MapBatch(ctx, "late", old.RunID, 0, 1)
	require.NoError(t, err)

	// A map attempt of the old run reads its batch, and while the model
	// answers, the query id is planned again.
	var current gs.PreparedRun
	model.onMap = func() {
		model.onMap = nil
		current, err = e.Prepare(ctx, p)
		require.NoError(t, err)
	}
	_, err = e.MapBatch(ctx, "late", old.RunID, 1, 1)
	require.NoError(t, err, "the old attempt saves its answer under its own run")
	require.NotEqual(t, old.RunID, current.RunID)

	calls := model.calls.Load()
	_, err = e.MapBatch(ctx, "late", old.RunID, 0, 2)
	assert.ErrorIs(t, err, gs.ErrNotFound, "an old attempt that starts after the new plan is refused")
	assert.Equal(t, calls, model.calls.Load(), "before any model call")

	_, err = e.Reduce(ctx, "late", old.RunID, nil)
	assert.ErrorIs(t, err, gs.ErrNotFound, "the old run's reduce is refused")
	_, err = e.FailReduce(ctx, "late", old.RunID, nil, errors.New("reduce failed"))
	assert.ErrorIs(t, err, gs.ErrNotFound, "the old run's failure is not recorded")
	_, err = s.Result(ctx, "late")
	assert.ErrorIs(t, err, gs.ErrNotFound, "no result until the new run has one")
	assert.Equal(t, calls, model.calls.Load(), "no reduce call for the old run")

	// The new run's map stage failed everywhere: the old run's answers do
	// not rescue it.
	failures := []gs.BatchFailure{{BatchIndex: 0, Message: "m0", Attempts: 2}, {BatchIndex: 1, Message: "m1", Attempts: 2}}
	res, err := e.Reduce(ctx, "late", current.RunID, failures)
	assert.Equal(t, gs.KindAllBatchesFailed, gs.KindOf(err))
	assert.Equal(t, gs.StatusFailed, res.Status)
	stored, err := s.Result(ctx, "late")
	require.NoError(t, err)
	assert.Equal(t, gs.StatusFailed, stored.Status)
}

// TestReportedFailureWinsOverStoredAnswer: a batch that the map stage
// reports failed is failed, even if an attempt of it stored an answer.
func TestReportedFailureWinsOverStoredAnswer(t *testing.T) {
	tests := []struct {
		name       string
		failed     []int
		wantStatus gs.Status
		wantKind   gs.Kind
		wantErrors []int
	}{
		{"one of three", []int{1}, gs.StatusPartial, 0, []int{1}},
		{"every batch", []int{0, 1, 2}, gs.StatusFailed, gs.KindAllBatchesFailed, []int{0, 1, 2}},
		{"none", nil, gs.StatusCompleted, 0, []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, _ := newEngine(t, leafNamespace(3), &switchModel{})
			p := oneBatchPerSummary(t, "q?", nil)
			out, err := e.Prepare(ctx, p)
			require.NoError(t, err)
			for i := range out.BatchCount {
				_, err := e.MapBatch(ctx, p.QueryID, out.RunID, i, 1)
				require.NoError(t, err)
			}
			var failures []gs.BatchFailure
			for _, i := range tc.failed {
				failures = append(failures, gs.BatchFailure{BatchIndex: i, Message: "lost after saving", Attempts: 2})
			}
			res, err := e.Reduce(ctx, p.QueryID, out.RunID, failures)
			if tc.wantKind != 0 {
				assert.Equal(t, tc.wantKind, gs.KindOf(err))
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantStatus, res.Status)
			got := []int{}
			for _, f := range res.MapErrors {
				got = append(got, f.BatchIndex)
				assert.Equal(t, "lost after saving", f.Message)
			}
			assert.Equal(t, tc.wantErrors, got)
			assert.Len(t, res.SelectedMapAnswers, 3-len(tc.failed))
		})
	}
}

// contentlessRuns is a runs store whose full plan read fails: a step that
// needs only a plan's ids and token counts must not read its batches'
// content, which is nearly all of its bytes.
type contentlessRuns struct{ *memstore.Store }

func (contentlessRuns) Plan(context.Context, string) (gs.Plan, error) {
	return gs.Plan{}, errors.New("full plan read")
}

func TestReduceReadsPlanMetadataOnly(t *testing.T) {
	tests := []struct {
		name       string
		reduce     func(e *gs.Engine, runID string) (gs.Result, error)
		wantStatus gs.Status
	}{
		{"reduce", func(e *gs.Engine, runID string) (gs.Result, error) {
			return e.Reduce(context.Background(), "meta", runID, nil)
		}, gs.StatusCompleted},
		{"reduce failure", func(e *gs.Engine, runID string) (gs.Result, error) {
			res, err := e.FailReduce(context.Background(), "meta", runID, nil, gs.Errorf(gs.KindModel, "model unavailable"))
			require.Error(t, err)
			return res, nil
		}, gs.StatusFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, s := newEngine(t, leafNamespace(3), &switchModel{})
			out, err := e.Prepare(ctx, oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.QueryID = "meta" }))
			require.NoError(t, err)
			for i := range out.BatchCount {
				_, err := e.MapBatch(ctx, "meta", out.RunID, i, 1)
				require.NoError(t, err)
			}
			e.Runs = contentlessRuns{s}
			res, err := tc.reduce(e, out.RunID)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, res.Status)
			assert.Len(t, res.Diagnostics.Batches, out.BatchCount)
			assert.Positive(t, res.Diagnostics.Batches[0].EstimatedTokens)
		})
	}
}
