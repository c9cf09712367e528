package globalsearch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// countingModel answers everything, rating every community relevant, and
// counts the calls of each stage; reduces counts the rating calls too.
type countingModel struct{ maps, reduces atomic.Int32 }

func (m *countingModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	switch req.Stage {
	case gs.StageMap:
		m.maps.Add(1)
	case gs.StageRate:
		m.reduces.Add(1)
		var ratings []string
		for _, part := range req.Parts {
			ratings = append(ratings, fmt.Sprintf(`{"id":%q,"score":5}`, part.CommunityID))
		}
		return text(`{"ratings":[` + strings.Join(ratings, ",") + `]}`)
	default:
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

func (f faultyStanding) SaveStandingRecord(ctx context.Context, r gs.StandingRecord, reset bool) error {
	if f.saveErr != nil {
		return f.saveErr
	}
	return f.Standing.SaveStandingRecord(ctx, r, reset)
}

// standingParams is a request of the standing question nightly under
// queryID: one batch per summary, in id order.
func standingParams(t *testing.T, queryID string, extra ...func(*gs.Request)) gs.Params {
	return oneBatchPerSummary(t, "What grew?", func(r *gs.Request) {
		name := "nightly"
		r.QueryID, r.StandingQuery = queryID, &name
		for _, f := range extra {
			f(r)
		}
	})
}

// changedIndex is distinctLeaves(6) with c1 rewritten, c5 removed and c9
// added: what a re-ingest of a few changed summaries leaves.
func changedIndex() gs.Records {
	r := distinctLeaves(5)
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
	e, s := newEngine(t, distinctLeaves(6), model)
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
	e, s := newEngine(t, distinctLeaves(3), model)
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

// A record that cannot be read fails the run before any model call and
// stays; a save that fails is logged and costs the run nothing
// (docs/contract.md#standing-questions).
func TestStandingStoreFailures(t *testing.T) {
	broken := errors.New("disk on fire")
	tests := []struct {
		name             string
		store            func(s *memstore.Store) gs.Standing
		wantErr          string
		wantRecordedByQ2 bool
	}{
		{"a record that cannot be read fails the run", func(s *memstore.Store) gs.Standing { return faultyStanding{Standing: s, readErr: broken} },
			"read the record of standing question nightly: disk on fire", false},
		{"a failed save leaves the previous record", func(s *memstore.Store) gs.Standing { return faultyStanding{Standing: s, saveErr: broken} }, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			model := &countingModel{}
			e, s := newEngine(t, distinctLeaves(2), model)
			_, err := e.Search(ctx, standingParams(t, "q-1"))
			require.NoError(t, err)
			e.Standing = tc.store(s)
			model.maps.Store(0)
			model.reduces.Store(0)
			_, err = e.Search(ctx, standingParams(t, "q-2"))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Zero(t, model.maps.Load()+model.reduces.Load(), "refused before any model call")
			} else {
				require.NoError(t, err)
			}
			rec, err := s.StandingRecord(ctx, "default", "nightly")
			require.NoError(t, err)
			assert.Equal(t, tc.wantRecordedByQ2, rec.QueryID == "q-2")
		})
	}
}

func ptr[T any](v T) *T { return &v }

// standingEngine is an engine whose standing records are files, as with
// run --standing NAME --cache DIR; the record of nightly is at file. nightly from a directory store,
func standingEngine(t *testing.T, model gs.Model) (*gs.Engine, *memstore.Store, string) {
	t.Helper()
	e, s := newEngine(t, distinctLeaves(3), model)
	dir := filepath.Join(t.TempDir(), "standing")
	e.Standing = dircache.NewStanding(dir, 0, nil)
	e.ModelID = "model-a"
	return e, s, filepath.Join(dir, "default", "nightly.json")
}

// A standing record belongs to its question, namespace and the map
// settings that shape answers: a run under its name that differs in any
// of them is refused before any model call, naming what differs, and the
// record stays until standingReset (docs/contract.md#standing-questions).
func TestStandingQuestionMismatch(t *testing.T) {
	tests := []struct {
		name   string
		change func(e *gs.Engine, r *gs.Request)
		want   string
	}{
		{"another query", func(_ *gs.Engine, r *gs.Request) { r.Query = "What shrank?" },
			`standing question "nightly" was recorded for query "What grew?"; this run asks for query "What shrank?": use another name, or --standing-reset (standingReset: true) to start a new baseline`},
		{"another level", func(_ *gs.Engine, r *gs.Request) { r.CommunityLevel = ptr(gs.Level(0)) },
			"was recorded for communityLevel leaf; this run asks for communityLevel 0"},
		{"auto level", func(_ *gs.Engine, r *gs.Request) {
			r.CommunityLevel = ptr(gs.AutoLevel)
			r.MaxMapInputTokens = ptr(100000)
		},
			"was recorded for communityLevel leaf; this run asks for communityLevel auto, maxMapInputTokens 100000"},
		{"dynamic selection", func(_ *gs.Engine, r *gs.Request) { r.Selection = ptr(gs.SelectionDynamic) },
			`was recorded for communityLevel leaf; this run asks for selection "dynamic", ratingThreshold`},
		{"another map model", func(e *gs.Engine, _ *gs.Request) { e.ModelID = "model-b" },
			`was recorded for map model "model-a"; this run asks for map model "model-b"`},
		{"other prompts", func(e *gs.Engine, _ *gs.Request) {
			e.Prompts.System = "You answer in verse."
		}, "was recorded for map prompts of digest "},
		{"another map output reserve", func(_ *gs.Engine, r *gs.Request) { r.MapOutputReserve = ptr(1) },
			"was recorded for mapOutputReserve 0; this run asks for mapOutputReserve 1"},
		{"several at once", func(e *gs.Engine, r *gs.Request) { r.Query = "What shrank?"; e.ModelID = "model-b" },
			`was recorded for query "What grew?", map model "model-a"; this run asks for query "What shrank?", map model "model-b"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			model := &countingModel{}
			e, _, file := standingEngine(t, model)
			_, err := e.Search(ctx, standingParams(t, "q-1"))
			require.NoError(t, err)
			before, err := os.ReadFile(file)
			require.NoError(t, err)
			model.maps.Store(0)
			model.reduces.Store(0)

			var changed gs.Request
			p := standingParams(t, "q-2", func(r *gs.Request) { tc.change(e, r); changed = *r })
			_, err = e.Plan(ctx, p)
			require.Error(t, err, "plan")
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.Contains(t, err.Error(), tc.want, "plan")
			res, err := e.Search(ctx, p)
			require.Error(t, err, "run")
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.Contains(t, err.Error(), tc.want, "run")
			assert.Equal(t, gs.StatusFailed, res.Status)
			assert.Zero(t, model.maps.Load()+model.reduces.Load(), "refused before any model call")
			after, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the record stays")

			changed.QueryID = "q-3"
			changed.StandingReset = ptr(true)
			p, err = changed.Params(gs.SpecDefaults)
			require.NoError(t, err)
			res, err = e.Search(ctx, p)
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status, res.Error)
			assert.True(t, res.Diagnostics.Changes.Reset)
			changed.QueryID, changed.StandingReset = "q-4", nil
			p, err = changed.Params(gs.SpecDefaults)
			require.NoError(t, err)
			next, err := e.Search(ctx, p)
			require.NoError(t, err, "the reset's record is now the question's")
			assert.Equal(t, "q-3", next.Diagnostics.Changes.PreviousQueryID)
		})
	}
}

// A record written before records named their question is refused as
// another question's until a reset: nothing says it is this one's
// (docs/contract.md#standing-questions).
func TestStandingRecordWithoutQuestion(t *testing.T) {
	ctx := context.Background()
	model := &countingModel{}
	e, _, _ := standingEngine(t, model)
	legacy := gs.StandingRecord{Namespace: "default", Name: "nightly", QueryID: "q-old", StartedAt: time.Now().Add(-time.Hour),
		Communities: []gs.CommunityHash{{ID: "c0", Hash: "0123456789abcdef"}}}
	require.NoError(t, e.Standing.SaveStandingRecord(ctx, legacy, false))
	_, err := e.Search(ctx, standingParams(t, "q-1"))
	require.Error(t, err)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Contains(t, err.Error(), `standing question "nightly" was recorded (by q-old) before records named their question`)
	assert.Zero(t, model.maps.Load()+model.reduces.Load())
	res, err := e.Search(ctx, standingParams(t, "q-2", func(r *gs.Request) { r.StandingReset = ptr(true) }))
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
}

// standingReset names the record it resets: without standingQuery it is
// invalid input.
func TestStandingResetNeedsAQuestion(t *testing.T) {
	_, err := gs.ParseRequest([]byte(`{"query":"q","standingReset":true}`), gs.SpecDefaults)
	require.Error(t, err)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Contains(t, err.Error(), "standingReset resets the record of a standing question: name it in standingQuery")
	_, err = gs.ParseRequest([]byte(`{"query":"q","standingQuery":"n","standingReset":"yes"}`), gs.SpecDefaults)
	assert.ErrorContains(t, err, "standingReset must be a boolean")
	p, err := gs.ParseRequest([]byte(`{"query":"q","standingQuery":"n","standingReset":true}`), gs.SpecDefaults)
	require.NoError(t, err)
	assert.True(t, p.StandingReset)
}

// runsOnly hides the Standing methods of a memstore: an engine with no
// store for standing records.
type runsOnly struct{ gs.Runs }

// A standing question the engine has nowhere to record is invalid input,
// refused before anything is read or written.
func TestStandingQuestionWithoutStore(t *testing.T) {
	ctx := context.Background()
	model := &countingModel{}
	_, s := newEngine(t, distinctLeaves(2), model)
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
	e, s := newEngine(t, distinctLeaves(2), &countingModel{})
	_, err := e.Search(ctx, standingParams(t, "q-1"))
	require.NoError(t, err)
	require.NoError(t, s.ReplaceNamespace(ctx, "default", distinctLeaves(gs.MaxListedChanges+12)))
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
			e, s := newEngine(t, distinctLeaves(3), &countingModel{})
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
