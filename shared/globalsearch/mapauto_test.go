package globalsearch_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// batchModel answers map calls by batch: outcome sees how many calls the
// batch (its content) has had, this one included, and returns nil to
// answer. It counts the calls of each batch.
type batchModel struct {
	outcome func(n int) error

	mu    sync.Mutex
	calls map[string]int
}

func (m *batchModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return answerEverything(req, 0)
	}
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[string]int{}
	}
	m.calls[req.Content]++
	n := m.calls[req.Content]
	m.mu.Unlock()
	if err := m.outcome(n); err != nil {
		return gs.ModelResponse{}, err
	}
	return answerEverything(req, n)
}

func (m *batchModel) total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	total := 0
	for _, n := range m.calls {
		total += n
	}
	return total
}

var (
	errThrottled = gs.Errorf(gs.KindThrottled, "model refused the call for load")
	errModel     = gs.Errorf(gs.KindModel, "model failed")
)

// With AutoConcurrency, a call the model refuses for load is made again as
// the same attempt, ThrottleRetries times a batch; past that a refusal is
// a failed attempt, so a model that never admits a call still ends the
// run, with each batch failed after ThrottleRetries + 2 calls. Any other
// failure spends an attempt, as at a fixed limit.
func TestAutoConcurrencyAttempts(t *testing.T) {
	const batches = 3
	tests := []struct {
		name         string
		outcome      func(n int) error
		wantStatus   gs.Status
		wantAttempts int // of every batch's answer or failure
		wantCalls    int // model calls of every batch
		wantRefused  int // calls refused for load, all batches
	}{
		{"every call answered", func(int) error { return nil }, gs.StatusCompleted, 1, 1, 0},
		{"refused three times, then answered in the first attempt",
			func(n int) error {
				if n <= 3 {
					return errThrottled
				}
				return nil
			}, gs.StatusCompleted, 1, 4, 3 * batches},
		{"a failed call spends an attempt", func(n int) error {
			if n == 1 {
				return errModel
			}
			return nil
		}, gs.StatusCompleted, 2, 2, 0},
		{"refused ThrottleRetries times and failed once: both attempts spent", func(n int) error {
			switch {
			case n <= gs.ThrottleRetries:
				return errThrottled
			case n == gs.ThrottleRetries+1:
				return errModel
			}
			return nil
		}, gs.StatusCompleted, 2, gs.ThrottleRetries + 2, gs.ThrottleRetries * batches},
		{"refused forever: the run still ends", func(int) error { return errThrottled },
			gs.StatusFailed, gs.MapAttempts, gs.ThrottleRetries + gs.MapAttempts, (gs.ThrottleRetries + gs.MapAttempts) * batches},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				model := &batchModel{outcome: tt.outcome}
				e, _ := newEngine(t, leafNamespace(batches), model)
				e.AutoConcurrency = &gs.AutoConcurrency{}
				res, err := e.Search(t.Context(), oneBatchPerSummary(t, "Which themes?", nil))
				assert.Equal(t, tt.wantStatus, res.Status, "error: %v", err)
				require.Equal(t, batches, res.Diagnostics.BatchCount)
				for _, n := range model.calls {
					assert.Equal(t, tt.wantCalls, n, "calls of a batch")
				}
				assert.Equal(t, tt.wantCalls*batches, model.total())
				// modelCalls counts attempts: a refused call is not one.
				assert.Equal(t, tt.wantAttempts*batches, res.Diagnostics.Map.ModelCalls)
				for _, f := range res.MapErrors {
					assert.Equal(t, tt.wantAttempts, f.Attempts)
					assert.Contains(t, f.Message, "refused the call for load")
				}
				report := res.Diagnostics.Map.AutoConcurrency
				require.NotNil(t, report, "the result records what the limit did")
				assert.Equal(t, tt.wantRefused, report.Throttled)
				assert.Equal(t, batches, report.Ceiling, "capped by the batch count")
			})
		})
	}
}

// quotaModel admits at most quota map calls at once, each taking latency
// of simulated time, and refuses the rest for load at once. It records the
// most calls it ever held admitted.
type quotaModel struct {
	quota   int
	latency time.Duration

	mu       sync.Mutex
	admitted int
	most     int
}

func (m *quotaModel) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return answerEverything(req, 0)
	}
	m.mu.Lock()
	if m.admitted == m.quota {
		m.mu.Unlock()
		return gs.ModelResponse{}, errThrottled
	}
	m.admitted++
	m.most = max(m.most, m.admitted)
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.admitted--; m.mu.Unlock() }()
	if err := sleepCtx(ctx, m.latency); err != nil {
		return gs.ModelResponse{}, err
	}
	return answerEverything(req, 0)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Against a model that admits three calls at once, the limit starts at its
// ceiling, falls to what the model admits and every batch is answered in
// its first attempt; a fixed limit at the ceiling would fail batches.
func TestAutoConcurrencyFindsTheQuota(t *testing.T) {
	tests := []struct {
		name    string
		ceiling int
		batches int
		quota   int
	}{
		{"ceiling 8, quota 3", 8, 24, 3},
		{"ceiling 16, quota 4", 16, 40, 4},
		{"quota above the ceiling: never refused", 4, 12, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				model := &quotaModel{quota: tt.quota, latency: 10 * time.Second}
				e, _ := newEngine(t, leafNamespace(tt.batches), model)
				e.AutoConcurrency = &gs.AutoConcurrency{Ceiling: tt.ceiling}
				res, err := e.Search(t.Context(), oneBatchPerSummary(t, "Which themes?", nil))
				require.NoError(t, err)
				assert.Equal(t, gs.StatusCompleted, res.Status)
				assert.Equal(t, tt.batches, res.Diagnostics.Map.ModelCalls, "every batch answered in its first attempt")
				report := res.Diagnostics.Map.AutoConcurrency
				require.NotNil(t, report)
				assert.Equal(t, tt.ceiling, report.Ceiling)
				assert.Equal(t, tt.ceiling, report.Peak, "it starts at its ceiling")
				assert.Equal(t, min(tt.quota, tt.ceiling), model.most, "the model's quota was used whole")
				if tt.quota >= tt.ceiling {
					assert.Zero(t, report.Throttled)
					assert.Equal(t, tt.ceiling, report.Final)
				} else {
					assert.Positive(t, report.Throttled)
					assert.Less(t, report.Final, tt.ceiling, "it came down from its ceiling")
				}
			})
		})
	}
}

// Progress hears of each batch once, after its last call, however many of
// its calls were refused.
func TestAutoConcurrencyProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &batchModel{outcome: func(n int) error {
			if n <= 2 {
				return errThrottled
			}
			return nil
		}}
		e, _ := newEngine(t, leafNamespace(4), model)
		e.AutoConcurrency = &gs.AutoConcurrency{}
		var reports []int
		e.Progress = func(done, total int) {
			assert.Equal(t, 4, total)
			reports = append(reports, done)
		}
		_, err := e.Search(t.Context(), oneBatchPerSummary(t, "Which themes?", nil))
		require.NoError(t, err)
		assert.Equal(t, []int{1, 2, 3, 4}, reports)
	})
}

// A run cancelled while a refused call waits for its retry ends at once:
// no further call, and the batches are failed with no attempt known to
// have cost anything.
func TestAutoConcurrencyCancelledDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		model := &batchModel{outcome: func(int) error {
			cancel()
			return errThrottled
		}}
		e, _ := newEngine(t, leafNamespace(2), model)
		e.AutoConcurrency = &gs.AutoConcurrency{Ceiling: 1}
		start := time.Now()
		res, err := e.Search(ctx, oneBatchPerSummary(t, "Which themes?", nil))
		require.Error(t, err)
		assert.Equal(t, gs.StatusFailed, res.Status)
		assert.Equal(t, 1, model.total(), "no call after the cancel")
		assert.Zero(t, time.Since(start), "no backoff waited out")
		for _, f := range res.MapErrors {
			assert.Zero(t, f.Attempts)
		}
	})
}

// saveThrottledRuns refuses the first save of each batch's answer for load,
// as a throttled DynamoDB would.
type saveThrottledRuns struct {
	gs.Runs
	mu    sync.Mutex
	saved map[int]bool
}

func (r *saveThrottledRuns) SaveMapAnswer(ctx context.Context, queryID, runID string, a gs.MapAnswer) error {
	r.mu.Lock()
	first := !r.saved[a.BatchIndex]
	r.saved[a.BatchIndex] = true
	r.mu.Unlock()
	if first {
		return gs.Errorf(gs.KindThrottled, "throttled by the store")
	}
	return r.Runs.SaveMapAnswer(ctx, queryID, runID, a)
}

// Only the model refusing a call is admission refused: a store that
// throttles the save of an answer fails that attempt, as at a fixed limit,
// and leaves the limit alone.
func TestAutoConcurrencyStoreThrottleSpendsAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &batchModel{outcome: func(int) error { return nil }}
		e, s := newEngine(t, leafNamespace(3), model)
		e.Runs = &saveThrottledRuns{Runs: s, saved: map[int]bool{}}
		e.AutoConcurrency = &gs.AutoConcurrency{}
		res, err := e.Search(t.Context(), oneBatchPerSummary(t, "Which themes?", nil))
		require.NoError(t, err)
		assert.Equal(t, gs.StatusCompleted, res.Status)
		assert.Equal(t, 6, res.Diagnostics.Map.ModelCalls, "two attempts a batch")
		require.NotNil(t, res.Diagnostics.Map.AutoConcurrency)
		assert.Zero(t, res.Diagnostics.Map.AutoConcurrency.Throttled)
		assert.Equal(t, 3, res.Diagnostics.Map.AutoConcurrency.Final)
	})
}

// A run with no batch to map records a limit that did nothing.
func TestAutoConcurrencyNoBatch(t *testing.T) {
	model := &batchModel{outcome: func(int) error { return nil }}
	e, _ := newEngine(t, gs.Records{}, model)
	e.AutoConcurrency = &gs.AutoConcurrency{}
	res, err := e.Search(context.Background(), oneBatchPerSummary(t, "Which themes?", nil))
	require.NoError(t, err)
	assert.Equal(t, gs.StatusNoResults, res.Status)
	assert.Zero(t, model.total())
	assert.Equal(t, &gs.AutoConcurrencyReport{}, res.Diagnostics.Map.AutoConcurrency)
}

// The log tells a throttled attempt from a failed one, since with
// AutoConcurrency a throttled call spends no attempt.
func TestMapLogNamesAThrottledAttempt(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus string
	}{
		{"throttled", errThrottled, `"status":"throttled"`},
		{"failed", errModel, `"status":"failed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &batchModel{outcome: func(n int) error {
				if n == 1 {
					return tt.err
				}
				return nil
			}}
			e, _ := newEngine(t, leafNamespace(1), model)
			var logs bytes.Buffer
			e.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
			res, err := e.Search(t.Context(), oneBatchPerSummary(t, "Which themes?", nil))
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status)
			var attemptLines []string
			for line := range strings.SplitSeq(logs.String(), "\n") {
				if strings.Contains(line, "map batch attempt failed") {
					attemptLines = append(attemptLines, line)
				}
			}
			require.Len(t, attemptLines, 1)
			assert.Contains(t, attemptLines[0], tt.wantStatus)
		})
	}
}
