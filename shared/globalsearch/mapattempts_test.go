package globalsearch_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// reply is one scripted map call: its text, or the error it fails with.
type reply struct {
	text string
	err  error
}

const goodMap = `{"answer":"Partial answer","usefulness":50}`

// spendModel is a scripted model that reports tokens of its own for every
// map call that answers (distinct for each, cache reads and writes
// included) and adds up what it reported: the figures every path must
// count. script holds, by a batch's first community, the replies of its
// first calls; past them a map call answers.
type spendModel struct {
	script map[string][]reply

	mu    sync.Mutex
	made  map[string]int
	spent gs.StageUsage // every map call (ModelCalls) and the tokens they reported
}

func (m *spendModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return gs.ModelResponse{Text: `{"answer":"Synthesised answer"}`, InputTokens: 500, OutputTokens: 50}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.made == nil {
		m.made = map[string]int{}
	}
	id := req.Parts[0].CommunityID
	r := reply{text: goodMap}
	if n := m.made[id]; n < len(m.script[id]) {
		r = m.script[id][n]
	}
	m.made[id]++
	m.spent.ModelCalls++
	if r.err != nil {
		return gs.ModelResponse{}, r.err
	}
	n := m.spent.ModelCalls
	resp := gs.ModelResponse{Text: r.text, InputTokens: 100 + 10*n, OutputTokens: 5 + n, CacheReadInputTokens: 3 * n, CacheWriteInputTokens: 2}
	m.spent.InputTokens += resp.InputTokens
	m.spent.OutputTokens += resp.OutputTokens
	m.spent.CacheReadInputTokens += resp.CacheReadInputTokens
	m.spent.CacheWriteInputTokens += resp.CacheWriteInputTokens
	return resp, nil
}

func (m *spendModel) spentMap() gs.StageUsage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// failingSaves fails the first saves of map answers it is told to.
type failingSaves struct {
	*memstore.Store
	fail atomic.Int32
}

func (s *failingSaves) SaveMapAnswer(ctx context.Context, queryID, runID string, a gs.MapAnswer) error {
	if s.fail.Add(-1) >= 0 {
		return errUnreachable
	}
	return s.Store.SaveMapAnswer(ctx, queryID, runID, a)
}

var spendPrices = &gs.Prices{Map: gs.Price{In: 0.003, Out: 0.015}, Reduce: gs.Price{In: 0.001, Out: 0.005}}

// assertMapSpend checks the map figures of d against what the model
// reported, and that the totals and the cost follow from them.
func assertMapSpend(t *testing.T, want gs.StageUsage, d gs.Diagnostics, what string) {
	t.Helper()
	got := gs.StageUsage{ModelCalls: d.Map.ModelCalls, InputTokens: d.Map.InputTokens, OutputTokens: d.Map.OutputTokens,
		CacheReadInputTokens: d.Map.CacheReadInputTokens, CacheWriteInputTokens: d.Map.CacheWriteInputTokens}
	assert.Equal(t, want, got, "%s: the map stage counts every call and every token the model reported", what)
	assert.Equal(t, want.ModelCalls+d.Reduce.ModelCalls+d.Selection.RatingCalls, d.ModelCalls, "%s: calls in total", what)
	assert.Equal(t, want.InputTokens+d.Reduce.InputTokens+d.Selection.RatingInputTokens, d.InputTokens, "%s: input in total", what)
	assert.Equal(t, want.OutputTokens+d.Reduce.OutputTokens+d.Selection.RatingOutputTokens, d.OutputTokens, "%s: output in total", what)
	require.NotNil(t, d.Cost, what)
	want.PromptCache = d.Map.PromptCache
	cost := spendPrices.UsageCost(want, d.Reduce)
	assert.InDelta(t, cost.Map, d.Cost.Map, 1e-12, "%s: the map cost prices every token", what)
	assert.InDelta(t, cost.Reduce, d.Cost.Reduce, 1e-12, what)
}

// TestFailedMapAttemptsAreCounted: an attempt that reached the model and
// was not saved as its batch's answer (output that breaks the rules, a
// failed call, a failed save) is counted in the result's map calls,
// tokens, cache tokens, totals and cost, whether its batch is answered
// later or fails; and the stored spend of the run reads the same figures
// (docs/contract.md#failed-attempts).
func TestFailedMapAttemptsAreCounted(t *testing.T) {
	throttled := gs.Errorf(gs.KindThrottled, "model: too many requests")
	tests := []struct {
		name       string
		script     map[string][]reply
		failSaves  int32
		wantStatus gs.Status
		wantFailed int
	}{
		{name: "unparseable output, then an answer", script: map[string][]reply{"c0": {{text: "not json"}}},
			wantStatus: gs.StatusCompleted},
		{name: "an answer citing only other batches, then an answer", script: map[string][]reply{"c0": {{text: `{"answer":"[Data: Reports (zz)]","usefulness":50}`}}},
			wantStatus: gs.StatusCompleted},
		{name: "a failed call, then an answer", script: map[string][]reply{"c0": {{err: errors.New("model: internal server error")}}},
			wantStatus: gs.StatusCompleted},
		{name: "a throttled call at a fixed limit, then an answer", script: map[string][]reply{"c1": {{err: throttled}}},
			wantStatus: gs.StatusCompleted},
		{name: "a failed save, then an answer", failSaves: 1, wantStatus: gs.StatusCompleted},
		{name: "throttled twice at a fixed limit: the batch fails", script: map[string][]reply{"c0": {{err: throttled}, {err: throttled}}},
			wantStatus: gs.StatusPartial, wantFailed: 1},
		{name: "unparseable output twice: the batch fails", script: map[string][]reply{"c1": {{text: "not json"}, {text: "{}"}}},
			wantStatus: gs.StatusPartial, wantFailed: 1},
		{name: "every batch fails", script: map[string][]reply{"c0": {{text: "no"}, {text: "no"}}, "c1": {{text: "no"}, {err: errors.New("model: timeout")}}},
			wantStatus: gs.StatusFailed, wantFailed: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			model := &spendModel{script: tc.script}
			e, s := newEngine(t, leafNamespace(2), model)
			runs := &failingSaves{Store: s}
			runs.fail.Store(tc.failSaves)
			e.Runs, e.Prices = runs, spendPrices
			p := oneBatchPerSummary(t, "What rose?", func(r *gs.Request) { one := 1; r.MapConcurrency = &one })

			res, err := e.Search(ctx, p)
			if tc.wantStatus == gs.StatusFailed {
				require.Equal(t, gs.KindAllBatchesFailed, gs.KindOf(err), "%v", err)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.wantStatus, res.Status)
			require.Equal(t, 2, res.Diagnostics.BatchCount)
			assert.Equal(t, tc.wantFailed, res.FailedMapBatches)
			spent := model.spentMap()
			assert.Greater(t, spent.ModelCalls, 2, "the script made a batch try twice")
			assertMapSpend(t, spent, res.Diagnostics, "the result")

			stored, err := s.Result(ctx, p.QueryID)
			require.NoError(t, err)
			assertMapSpend(t, spent, stored.Diagnostics, "the stored result")
			d, err := gs.StoredSpend(ctx, s, spendPrices, p.QueryID)
			require.NoError(t, err)
			assertMapSpend(t, spent, d, "the stored spend")
		})
	}
}

// TestRunSpendCountsUnsavedAttempts: a run stopped during its map stage
// (no failure report, no reduce) counts the calls and tokens of a batch
// with no answer from its tally, and an answered batch's earlier attempts
// once; a replaced run's tallies are neither read as the new run's nor
// kept (docs/contract.md#cancel).
func TestRunSpendCountsUnsavedAttempts(t *testing.T) {
	ctx := context.Background()
	model := &spendModel{script: map[string][]reply{
		"c0": {{text: "not json"}, {text: `{"answer":"","usefulness":"high"}`}},
		"c1": {{err: errors.New("model: internal server error")}},
	}}
	e, s := newEngine(t, leafNamespace(3), model)
	e.Prices = spendPrices
	p := oneBatchPerSummary(t, "What rose?", nil)
	run, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	require.Equal(t, 3, run.BatchCount)
	attempts := []struct {
		index, attempt int
		wantErr        bool
	}{{0, 1, true}, {0, 2, true}, {1, 1, true}, {1, 2, false}}
	for _, a := range attempts {
		_, err := e.MapBatch(ctx, p.QueryID, run.RunID, a.index, a.attempt)
		assert.Equal(t, a.wantErr, err != nil, "batch %d attempt %d: %v", a.index, a.attempt, err)
	}

	d, err := gs.RunSpend(ctx, s, spendPrices, p.QueryID, run.RunID)
	require.NoError(t, err)
	spent := model.spentMap()
	require.Equal(t, len(attempts), spent.ModelCalls)
	assertMapSpend(t, spent, d, "a stopped run")

	again, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	require.NotEqual(t, run.RunID, again.RunID, "the same request again is a new run")
	old, err := gs.RunSpend(ctx, s, spendPrices, p.QueryID, run.RunID)
	require.NoError(t, err)
	assert.Zero(t, old.Map, "a replaced run claims nothing")
	now, err := gs.StoredSpend(ctx, s, spendPrices, p.QueryID)
	require.NoError(t, err)
	assert.Zero(t, now.Map, "the new run spent nothing yet: no tally of the old one is its")
	tallies, err := s.MapAttempts(ctx, p.QueryID, run.RunID)
	require.NoError(t, err)
	assert.Empty(t, tallies, "the new plan dropped the replaced run's tallies")
}

// TestReportedFailureKeepsItsAnswersSpend: an answer stored for a batch the
// map stage reports failed is left out of the answers, but its tokens
// were spent, and its call is the report's (docs/contract.md#failed-attempts).
func TestReportedFailureKeepsItsAnswersSpend(t *testing.T) {
	ctx := context.Background()
	model := &spendModel{}
	e, _ := newEngine(t, leafNamespace(2), model)
	e.Prices = spendPrices
	p := oneBatchPerSummary(t, "What rose?", nil)
	run, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	for i := range run.BatchCount {
		_, err := e.MapBatch(ctx, p.QueryID, run.RunID, i, 1)
		require.NoError(t, err)
	}
	reported := []gs.BatchFailure{{BatchIndex: 0, Message: "map batch failed 2 times, last with States.Timeout", Attempts: gs.MapAttempts}}
	res, err := e.Reduce(ctx, p.QueryID, run.RunID, reported)
	require.NoError(t, err)
	require.Equal(t, gs.StatusPartial, res.Status)
	want := model.spentMap()
	want.ModelCalls += gs.MapAttempts - 1 // the report says batch 0 took two attempts; the model saw one
	assertMapSpend(t, want, res.Diagnostics, "the result")
}

// failingTallies is a store whose map attempt tallies cannot be written or
// read.
type failingTallies struct {
	*memstore.Store
	write, read bool
}

func (s failingTallies) AddMapAttempt(ctx context.Context, queryID, runID string, a gs.MapAttempt) error {
	if s.write {
		return errUnreachable
	}
	return s.Store.AddMapAttempt(ctx, queryID, runID, a)
}

func (s failingTallies) MapAttempts(ctx context.Context, queryID, runID string) ([]gs.MapAttempt, error) {
	if s.read {
		return nil, errUnreachable
	}
	return s.Store.MapAttempts(ctx, queryID, runID)
}

// TestMapAttemptTallyFailures: a tally that cannot be written is logged
// and leaves the attempt's own error as it was; one that cannot be read
// fails the reduce step with an error naming it, as the spend does.
func TestMapAttemptTallyFailures(t *testing.T) {
	ctx := context.Background()
	model := &spendModel{script: map[string][]reply{"c0": {{text: "not json"}, {text: "not json"}}}}
	e, s := newEngine(t, leafNamespace(1), model)
	var logs bytes.Buffer
	e.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	p := oneBatchPerSummary(t, "What rose?", nil)
	run, err := e.Prepare(ctx, p)
	require.NoError(t, err)

	_, want := e.MapBatch(ctx, p.QueryID, run.RunID, 0, 1)
	require.Error(t, want)
	e.Runs = failingTallies{Store: s, write: true}
	_, got := e.MapBatch(ctx, p.QueryID, run.RunID, 0, 2)
	require.Error(t, got)
	assert.Equal(t, want.Error(), got.Error(), "the attempt fails as it would have")
	assert.Equal(t, gs.KindOf(want), gs.KindOf(got))
	assert.Contains(t, logs.String(), `"msg":"map attempt tally unsaved"`)
	tallies, err := s.MapAttempts(ctx, p.QueryID, run.RunID)
	require.NoError(t, err)
	require.Len(t, tallies, 1, "the first attempt's tally only")
	assert.Equal(t, 1, tallies[0].Calls)

	e.Runs = failingTallies{Store: s, read: true}
	_, err = e.Reduce(ctx, p.QueryID, run.RunID, nil)
	require.ErrorIs(t, err, errUnreachable)
	assert.Contains(t, err.Error(), "load map attempts")
}

// TestRefusalUnderAutoIsNoCall: with --concurrency auto a call the model
// refused for load is no attempt (docs/contract.md#auto-concurrency): no
// tally counts it, so neither the result nor the stored spend does, while
// at a fixed limit (above) it is a failed attempt and counted.
func TestRefusalUnderAutoIsNoCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		model := &spendModel{script: map[string][]reply{"c0": {{err: gs.Errorf(gs.KindThrottled, "model: too many requests")}, {text: "not json"}, {text: "not json"}}}}
		e, s := newEngine(t, leafNamespace(2), model)
		e.Prices, e.AutoConcurrency = spendPrices, &gs.AutoConcurrency{}
		p := oneBatchPerSummary(t, "What rose?", nil)
		res, err := e.Search(ctx, p)
		require.NoError(t, err)
		require.Equal(t, gs.StatusPartial, res.Status, "batch 0 failed both its attempts")
		require.NotNil(t, res.Diagnostics.Map.AutoConcurrency)
		require.Equal(t, 1, res.Diagnostics.Map.AutoConcurrency.Throttled)
		want := model.spentMap()
		want.ModelCalls-- // the refusal
		assertMapSpend(t, want, res.Diagnostics, "the result")
		d, err := gs.StoredSpend(ctx, s, spendPrices, p.QueryID)
		require.NoError(t, err)
		assertMapSpend(t, want, d, "the stored spend")
	})
}
