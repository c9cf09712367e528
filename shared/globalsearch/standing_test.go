package globalsearch_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// countingModel answers everything and counts the calls of each stage.
type countingModel struct{ maps, reduces atomic.Int32 }

func (m *countingModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageMap {
		m.maps.Add(1)
	} else {
		m.reduces.Add(1)
	}
	return answerEverything(req, 0)
}

// faultyStanding wraps a Standing; readErr and saveErr replace its
// answers.
type faultyStanding struct {
	gs.Standing
	readErr, saveErr error
}

func (f faultyStanding) StandingRecord(ctx context.Context, ns, name string) (gs.StandingRecord, error) {
	if f.readErr != nil {
		return gs.StandingRecord{}, f.readErr
	}
	return f.Standing.StandingRecord(ctx, ns, name)
}

func (f faultyStanding) SaveStandingRecord(ctx context.Context, r gs.StandingRecord) error {
	if f.saveErr != nil {
		return f.saveErr
	}
	return f.Standing.SaveStandingRecord(ctx, r)
}

// standingParams is a request of the standing question nightly under
// queryID: one batch per summary, in id order.
func standingParams(t *testing.T, queryID string) gs.Params {
	return oneBatchPerSummary(t, "What grew?", func(r *gs.Request) {
		name := "nightly"
		r.QueryID, r.StandingQuery = queryID, &name
	})
}

// changedIndex is leafNamespace(6) with c1 rewritten, c5 removed and c9
// added: what a re-ingest of a few changed summaries leaves.
func changedIndex() gs.Records {
	r := leafNamespace(5)
	r.Summaries[1].Summary = "Rewritten: " + summaryText
	r.Summaries = append(r.Summaries, gs.Summary{ID: "c9", Summary: summaryText + "New."})
	return r
}

// A standing question asked twice across an index change reports what
// changed and pays only for the batches that did
// (docs/contract.md#standing-questions).
func TestStandingQuestionReportsChanges(t *testing.T) {
	ctx := context.Background()
	model := &countingModel{}
	e, s := newEngine(t, leafNamespace(6), model)
	e.Cache = dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil)
	e.ModelID = "test"

	first, err := e.Search(ctx, standingParams(t, "night-1"))
	require.NoError(t, err)
	require.Equal(t, gs.StatusCompleted, first.Status)
	assert.Equal(t, &gs.Changes{StandingQuery: "nightly", Communities: 6, BatchesRemapped: 6,
		Added: gs.CommunityChanges{IDs: []string{}}, Removed: gs.CommunityChanges{IDs: []string{}}, Changed: gs.CommunityChanges{IDs: []string{}}},
		first.Diagnostics.Changes, "lists, never null, on a first run")
	assert.EqualValues(t, 6, model.maps.Load())

	require.NoError(t, s.ReplaceNamespace(ctx, "default", changedIndex()))
	model.maps.Store(0)
	model.reduces.Store(0)
	second, err := e.Search(ctx, standingParams(t, "night-2"))
	require.NoError(t, err)
	require.Equal(t, gs.StatusCompleted, second.Status)
	ch := second.Diagnostics.Changes
	require.NotNil(t, ch)
	assert.Equal(t, "night-1", ch.PreviousQueryID)
	require.NotNil(t, ch.PreviousStartedAt)
	assert.True(t, first.Diagnostics.StartedAt.Equal(*ch.PreviousStartedAt))
	assert.Equal(t, gs.CommunityChanges{Count: 1, IDs: []string{"c9"}}, ch.Added)
	assert.Equal(t, gs.CommunityChanges{Count: 1, IDs: []string{"c5"}}, ch.Removed)
	assert.Equal(t, gs.CommunityChanges{Count: 1, IDs: []string{"c1"}}, ch.Changed)
	assert.Equal(t, 4, ch.Unchanged)
	assert.Equal(t, 6, ch.Communities)
	assert.Equal(t, 2, ch.BatchesRemapped, "c1 and c9 are mapped again")
	assert.Equal(t, 4, ch.AnswersReused)
	assert.Equal(t, ch.AnswersReused, second.Diagnostics.Map.CacheHits)
	assert.EqualValues(t, 2, model.maps.Load(), "only the changed batches call the model")
	assert.EqualValues(t, 1, model.reduces.Load())
	assert.Equal(t, 3, second.Diagnostics.ModelCalls)

	stored, err := s.Result(ctx, "night-2")
	require.NoError(t, err)
	assert.Equal(t, ch, stored.Diagnostics.Changes, "the stored result, which GET returns, holds the report")
	rec, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "night-2", rec.QueryID)
	assert.Len(t, rec.Communities, 6)
}

// Runs of the same question name and other namespaces or names keep apart,
// a failed run leaves the previous record, and a run without a standing
// question records nothing.
func TestStandingQuestionRecordsOnlyCompletedRuns(t *testing.T) {
	ctx := context.Background()
	model := &switchModel{}
	e, s := newEngine(t, leafNamespace(3), model)
	_, err := e.Search(ctx, standingParams(t, "night-1"))
	require.NoError(t, err)

	model.failMap.Store(true)
	failed, err := e.Search(ctx, standingParams(t, "night-2"))
	require.Error(t, err)
	assert.Equal(t, gs.StatusFailed, failed.Status)
	assert.Equal(t, "night-1", failed.Diagnostics.Changes.PreviousQueryID, "a failed run still says what changed")
	rec, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "night-1", rec.QueryID, "a failed run leaves the previous record")

	model.failMap.Store(false)
	third, err := e.Search(ctx, standingParams(t, "night-3"))
	require.NoError(t, err)
	assert.Equal(t, "night-1", third.Diagnostics.Changes.PreviousQueryID)
	assert.Equal(t, 3, third.Diagnostics.Changes.Unchanged)

	plain, err := e.Search(ctx, oneBatchPerSummary(t, "What grew?", func(r *gs.Request) { r.QueryID = "plain" }))
	require.NoError(t, err)
	assert.Nil(t, plain.Diagnostics.Changes, "no standing question, no report")
	rec, err = s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "night-3", rec.QueryID)
}

// A record that cannot be read or saved costs the run nothing: it is
// logged, and the run reports as a first run.
func TestStandingStoreFailures(t *testing.T) {
	broken := errors.New("disk on fire")
	tests := []struct {
		name             string
		store            func(s *memstore.Store) gs.Standing
		wantPrevious     string
		wantRecordedByQ2 bool
	}{
		{"an unreadable record reads as none", func(s *memstore.Store) gs.Standing { return faultyStanding{Standing: s, readErr: broken} }, "", true},
		{"a failed save leaves the previous record", func(s *memstore.Store) gs.Standing { return faultyStanding{Standing: s, saveErr: broken} }, "q-1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, s := newEngine(t, leafNamespace(2), &countingModel{})
			_, err := e.Search(ctx, standingParams(t, "q-1"))
			require.NoError(t, err)
			e.Standing = tc.store(s)
			res, err := e.Search(ctx, standingParams(t, "q-2"))
			require.NoError(t, err)
			assert.Equal(t, gs.StatusCompleted, res.Status)
			assert.Equal(t, tc.wantPrevious, res.Diagnostics.Changes.PreviousQueryID)
			rec, err := s.StandingRecord(ctx, "default", "nightly")
			require.NoError(t, err)
			assert.Equal(t, tc.wantRecordedByQ2, rec.QueryID == "q-2")
		})
	}
}

// runsOnly hides the Standing methods of a memstore: an engine with no
// store for standing records.
type runsOnly struct{ gs.Runs }

// A standing question the engine has nowhere to record is invalid input,
// refused before anything is read or written.
func TestStandingQuestionWithoutStore(t *testing.T) {
	ctx := context.Background()
	model := &countingModel{}
	_, s := newEngine(t, leafNamespace(2), model)
	e := &gs.Engine{Index: s, Runs: runsOnly{s}, Model: model}
	p := standingParams(t, "q-1")
	_, err := e.Search(ctx, p)
	require.Error(t, err)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Contains(t, err.Error(), "standingQuery nightly needs a store for its record")
	_, err = s.Request(ctx, "q-1")
	assert.ErrorIs(t, err, gs.ErrNotFound, "nothing was claimed")
	_, err = e.Plan(ctx, p)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Zero(t, model.maps.Load()+model.reduces.Load())
}

// The dry run says what changed without a model call, and lists at most
// MaxListedChanges ids of each kind.
func TestStandingPlanListsChanges(t *testing.T) {
	ctx := context.Background()
	e, s := newEngine(t, leafNamespace(2), &countingModel{})
	_, err := e.Search(ctx, standingParams(t, "q-1"))
	require.NoError(t, err)
	require.NoError(t, s.ReplaceNamespace(ctx, "default", leafNamespace(gs.MaxListedChanges+12)))
	plan, err := e.Plan(ctx, standingParams(t, "q-2"))
	require.NoError(t, err)
	require.NotNil(t, plan.Changes)
	assert.Equal(t, gs.MaxListedChanges+10, plan.Changes.Added.Count)
	assert.Len(t, plan.Changes.Added.IDs, gs.MaxListedChanges)
	assert.Equal(t, 2, plan.Changes.Unchanged)
	assert.Zero(t, plan.Changes.BatchesRemapped, "a plan maps nothing")
}

// scriptedModel fails the map calls whose batch holds failID, and the
// first failReduces reduce calls; it answers the rest.
type scriptedModel struct {
	failID      string
	failReduces int32
	reduces     atomic.Int32
}

func (m *scriptedModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce && m.reduces.Add(1) <= m.failReduces {
		return gs.ModelResponse{}, gs.Errorf(gs.KindModel, "reduce unavailable")
	}
	if req.Stage == gs.StageMap && m.failID != "" && len(req.Parts) > 0 && req.Parts[0].CommunityID == m.failID {
		return gs.ModelResponse{}, gs.Errorf(gs.KindModel, "model unavailable")
	}
	return answerEverything(req, 0)
}

// A partial run records, and a reduce that needed its retry reports and
// records once, as a first attempt would.
func TestStandingQuestionPartialAndRetriedReduce(t *testing.T) {
	tests := []struct {
		name       string
		model      *scriptedModel
		wantStatus gs.Status
	}{
		{"partial", &scriptedModel{failID: "c1"}, gs.StatusPartial},
		{"reduce retried", &scriptedModel{failReduces: 1}, gs.StatusCompleted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, s := newEngine(t, leafNamespace(3), &countingModel{})
			_, err := e.Search(ctx, standingParams(t, "q-1"))
			require.NoError(t, err)
			e.Model = tc.model
			res, err := e.Search(ctx, standingParams(t, "q-2"))
			require.NoError(t, err)
			require.Equal(t, tc.wantStatus, res.Status)
			assert.Equal(t, "q-1", res.Diagnostics.Changes.PreviousQueryID)
			assert.Equal(t, 3, res.Diagnostics.Changes.Unchanged)
			assert.Equal(t, 3, res.Diagnostics.Changes.BatchesRemapped, "no cache: every batch is mapped")
			rec, err := s.StandingRecord(ctx, "default", "nightly")
			require.NoError(t, err)
			assert.Equal(t, "q-2", rec.QueryID)
			assert.Len(t, rec.Communities, 3)
		})
	}
}
