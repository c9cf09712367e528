package globalsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
)

// testClock is the engine's clock in the timeline tests: it moves only
// when a fake advances it, so every duration is exact.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// slowIndex is an index whose every Open takes d on the clock: prepare's
// reading time.
type slowIndex struct {
	gs.Index
	clock *testClock
	d     time.Duration
}

func (i slowIndex) Open(ctx context.Context, namespace string) (gs.Snapshot, error) {
	i.clock.advance(i.d)
	return i.Index.Open(ctx, namespace)
}

// timedModel answers as answer does, each call taking the stage's time on
// the clock, failed calls too.
func timedModel(clock *testClock, answer func(req gs.ModelRequest, call int) (gs.ModelResponse, error)) *fakeModel {
	took := map[gs.Stage]time.Duration{gs.StageRate: time.Second, gs.StageMap: 2 * time.Second, gs.StageReduce: 1500 * time.Millisecond}
	return &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		clock.advance(took[req.Stage])
		return answer(req, call)
	}}
}

// timelineEngine is an engine over three one-summary batches whose clock
// only the index (0.25 s a read) and the model (timedModel) move.
func timelineEngine(t *testing.T, records gs.Records, answer func(req gs.ModelRequest, call int) (gs.ModelResponse, error)) (*gs.Engine, *testClock) {
	clock := newTestClock()
	e, s := newEngine(t, records, timedModel(clock, answer))
	e.Index, e.Now = slowIndex{Index: s, clock: clock, d: 250 * time.Millisecond}, clock.Now
	return e, clock
}

// A run in one process records its timeline from the engine's clock
// (docs/contract.md#timeline): with one batch in flight, three map calls of
// 2 s each and a reduce call of 1.5 s, every duration is known exactly.
func TestSearchTimeline(t *testing.T) {
	errModel := errors.New("model unavailable")
	tests := []struct {
		name       string
		answer     func(req gs.ModelRequest, call int) (gs.ModelResponse, error)
		wantStatus gs.Status
		want       gs.Timeline // StartedAt is the clock's start
	}{
		{name: "every stage", answer: answerEverything, wantStatus: gs.StatusCompleted,
			want: gs.Timeline{PrepareSeconds: new(0.25), FirstMapCallSeconds: new(0.25), MapSeconds: new(6.0), ReduceSeconds: new(1.5)}},
		{name: "a failed call records nothing: the first map call is the first that answered",
			answer: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageMap && call == 1 {
					return gs.ModelResponse{}, errModel
				}
				return answerEverything(req, call)
			}, wantStatus: gs.StatusCompleted,
			want: gs.Timeline{PrepareSeconds: new(0.25), FirstMapCallSeconds: new(2.25), MapSeconds: new(6.0), ReduceSeconds: new(1.5)}},
		{name: "every batch failed: no map stage, and a reduce step without a call",
			answer: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageMap {
					return gs.ModelResponse{}, errModel
				}
				return answerEverything(req, call)
			}, wantStatus: gs.StatusFailed,
			want: gs.Timeline{PrepareSeconds: new(0.25), ReduceSeconds: new(0.0)}},
		{name: "reduce failed every attempt: no reduce duration",
			answer: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce {
					return gs.ModelResponse{}, errModel
				}
				return answerEverything(req, call)
			}, wantStatus: gs.StatusFailed,
			want: gs.Timeline{PrepareSeconds: new(0.25), FirstMapCallSeconds: new(0.25), MapSeconds: new(6.0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := timelineEngine(t, leafNamespace(3), tc.answer)
			tc.want.StartedAt = clock.Now()
			res, _ := e.Search(context.Background(), oneBatchPerSummary(t, "q?", func(r *gs.Request) { c := 1; r.MapConcurrency = &c }))
			require.Equal(t, tc.wantStatus, res.Status, res.Error)
			assert.Equal(t, tc.want, res.Diagnostics.Timeline)
			assert.Equal(t, res.Diagnostics.StartedAt, res.Diagnostics.Timeline.StartedAt, "the run starts when prepare does")
		})
	}
}

// A dynamic selection's rating calls are part of prepare: its run starts
// before the first of them (docs/contract.md#dynamic-selection).
func TestSearchTimelineOfDynamicSelection(t *testing.T) {
	e, clock := timelineEngine(t, forest(), rater(map[string]int{"a": 5, "a1": 5}, nil))
	idx := e.Index.(slowIndex)
	idx.d = 0 // only the model moves the clock: 1 s a rating call, 2 s a map call
	e.Index = idx
	started := clock.Now()
	res, err := e.Search(context.Background(), dynamicParams(t, `,"mapConcurrency":1`))
	require.NoError(t, err)
	rating, batches := float64(res.Diagnostics.Selection.RatingCalls), float64(res.Diagnostics.BatchCount)
	require.Positive(t, rating)
	assert.Equal(t, gs.Timeline{StartedAt: started, PrepareSeconds: new(rating), FirstMapCallSeconds: new(rating),
		MapSeconds: new(2 * batches), ReduceSeconds: new(1.5)}, res.Diagnostics.Timeline)
}

// A run whose every answer the map cache served made no map call
// (docs/contract.md#map-cache): its timeline has no map stage.
func TestSearchTimelineOfCachedRun(t *testing.T) {
	e, clock := timelineEngine(t, leafNamespace(3), answerEverything)
	e.Cache, e.ModelID = dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil), "model-a"
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { c := 1; r.MapConcurrency = &c })
	first, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, first.Diagnostics.Timeline.MapSeconds, "the first run called the model")

	started := clock.Now()
	second, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, 3, second.Diagnostics.Map.CacheHits)
	assert.Equal(t, gs.Timeline{StartedAt: started, PrepareSeconds: new(0.25), ReduceSeconds: new(1.5)}, second.Diagnostics.Timeline)
}

// A plan and answers stored before the instants were recorded (a run saved
// by an earlier version) still reduce: the timeline has what they support.
func TestReduceTimelineOfOldItems(t *testing.T) {
	ctx := context.Background()
	e, clock := timelineEngine(t, leafNamespace(2), answerEverything)
	p := oneBatchPerSummary(t, "q?", nil)
	started := clock.Now()
	out, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	plan, err := e.Runs.Plan(ctx, p.QueryID)
	require.NoError(t, err)
	plan.PlannedAt = time.Time{}
	require.NoError(t, e.Runs.SavePlan(ctx, plan))
	for i := range out.BatchCount {
		require.NoError(t, e.Runs.SaveMapAnswer(ctx, p.QueryID, out.RunID, gs.MapAnswer{BatchIndex: i, Answer: "old", Usefulness: 50, Attempts: 1}))
	}
	res, err := e.Reduce(ctx, p.QueryID, out.RunID, nil)
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Equal(t, gs.Timeline{StartedAt: started, ReduceSeconds: new(1.5)}, res.Diagnostics.Timeline)
}

// A run refused before its plan has only its start: no stage ran to be
// measured.
func TestRefusedRunTimeline(t *testing.T) {
	e, clock := timelineEngine(t, leafNamespace(3), answerEverything)
	e.MaxBatches = 1
	refused, err := e.Search(context.Background(), oneBatchPerSummary(t, "q?", nil))
	require.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err), "three batches, one allowed")
	require.Equal(t, gs.StatusFailed, refused.Status)
	assert.Equal(t, gs.Timeline{StartedAt: clock.Now()}, refused.Diagnostics.Timeline, "the instant it was refused, as startedAt")
	assert.Equal(t, refused.Diagnostics.StartedAt, refused.Diagnostics.Timeline.StartedAt)
}

// The timeline reads as the contract writes it: RFC 3339 start, seconds to
// the millisecond, and no key for a stage it cannot measure.
func TestTimelineJSON(t *testing.T) {
	tl := gs.Timeline{StartedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), PrepareSeconds: new(1.235), ReduceSeconds: new(0.0)}
	data, err := json.Marshal(gs.Diagnostics{Timeline: tl})
	require.NoError(t, err)
	var d struct {
		Timeline json.RawMessage `json:"timeline"`
	}
	require.NoError(t, json.Unmarshal(data, &d))
	assert.JSONEq(t, `{"startedAt":"2026-12-01T09:00:00Z","prepareSeconds":1.235,"reduceSeconds":0}`, string(d.Timeline))
	assert.Contains(t, string(d.Timeline), `"prepareSeconds":1.235`, "not 1.2349999999999999")

	data, err = json.Marshal(gs.Diagnostics{})
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"timeline"`, "a result stored before the timeline has none")
}
