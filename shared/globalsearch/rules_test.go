package globalsearch_test

// Tests that pin rules a looser implementation would still pass with the
// friendlier inputs of the other files: ties that arrive out of batch
// order, a skip after something is already selected, the map stage's
// concurrency reached (not only bounded), a batch the map stage lost, and
// what a second attempt leaves behind.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func TestSelectAnswersOrderAndSkip(t *testing.T) {
	answer := func(i int, u float64, text string) gs.MapAnswer {
		return gs.MapAnswer{BatchIndex: i, Usefulness: u, Answer: text, CommunityIDs: []string{fmt.Sprintf("c%d", i)}}
	}
	// Thirty ties given in reverse batch order: enough elements that an
	// unstable sort does not fall back to its (stable) insertion sort.
	var reversed []gs.MapAnswer
	var inBatchOrder []string
	for i := 29; i >= 0; i-- {
		reversed = append(reversed, answer(i, 40, fmt.Sprintf("tie %d", i)))
	}
	for i := range 30 {
		inBatchOrder = append(inBatchOrder, fmt.Sprintf("tie %d", i))
	}
	tests := []struct {
		name     string
		skeleton string
		budget   int
		answers  []gs.MapAnswer
		want     []string
	}{
		{"ties given out of batch order come back in batch order", "q", 1000,
			[]gs.MapAnswer{answer(2, 50, "late"), answer(1, 70, "top"), answer(0, 50, "early")},
			[]string{"top", "early", "late"}},
		{"many ties, reversed", "q", 100000, reversed, inBatchOrder},
		{"a skip after a selection goes on to the next answer", "Question prompt", 40,
			[]gs.MapAnswer{answer(0, 90, "Fits first"), answer(1, 80, strings.Repeat("x", 400)), answer(2, 70, "Fits too")},
			[]string{"Fits first", "Fits too"}},
		{"two skips in a row, then a fit", "Question prompt", 40,
			[]gs.MapAnswer{answer(0, 90, "Fits first"), answer(1, 80, strings.Repeat("x", 400)),
				answer(2, 75, strings.Repeat("y", 300)), answer(3, 70, "Fits too")},
			[]string{"Fits first", "Fits too"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			selected, content, promptTokens := gs.SelectAnswers(tc.skeleton, tc.budget, tc.answers)
			var got []string
			for _, a := range selected {
				got = append(got, a.Answer)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tokens.Estimate(tc.skeleton+"\n"+content), promptTokens)
			assert.LessOrEqual(t, promptTokens, tc.budget)
		})
	}
}

// barrierModel holds every map call until want of them are in flight at
// once, then lets them all go, and every later call too. A runner that keeps fewer calls in flight
// never opens the barrier: its calls wait until the test's context ends,
// which is the failure path (no timing is asserted).
type barrierModel struct {
	want int

	mu          sync.Mutex
	arrived     int
	inFlight    int
	maxInFlight int
	open        chan struct{}
}

func newBarrierModel(want int) *barrierModel {
	return &barrierModel{want: want, open: make(chan struct{})}
}

func (m *barrierModel) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return answerEverything(req, 0)
	}
	m.mu.Lock()
	m.arrived++
	m.inFlight++
	m.maxInFlight = max(m.maxInFlight, m.inFlight)
	// Only calls in flight together open it: calls that come one after
	// another never add up to want.
	if m.inFlight == m.want && !m.opened() {
		close(m.open)
	}
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.inFlight--; m.mu.Unlock() }()
	select {
	case <-m.open:
		return answerEverything(req, 0)
	case <-ctx.Done():
		return gs.ModelResponse{}, fmt.Errorf("barrier of %d calls never opened: %w", m.want, ctx.Err())
	}
}

func (m *barrierModel) opened() bool {
	select {
	case <-m.open:
		return true
	default:
		return false
	}
}

// docs/contract.md#map-calls: exactly min(mapConcurrency, batches) calls in flight, not
// merely at most that many.
func TestMapCallsInFlightReachConcurrency(t *testing.T) {
	tests := []struct{ batches, concurrency int }{
		{10, 4}, {3, 8}, {7, 1}, {4, 4}, {6, 2},
	}
	for _, tc := range tests {
		want := min(tc.concurrency, tc.batches)
		t.Run(fmt.Sprintf("%d batches at %d -> %d in flight", tc.batches, tc.concurrency, want), func(t *testing.T) {
			model := newBarrierModel(want)
			e, _ := newEngine(t, leafNamespace(tc.batches), model)
			p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.MapConcurrency = &tc.concurrency })
			// The deadline only ends a run whose barrier never opens.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := e.Search(ctx, p)
			require.True(t, model.opened(), "fewer than %d map calls were ever in flight at once", want)
			require.NoError(t, err)
			assert.Equal(t, gs.StatusCompleted, res.Status)
			assert.Equal(t, want, model.maxInFlight, "never more than min(concurrency, batches)")
			assert.Equal(t, tc.batches, model.arrived)
		})
	}
}

// A batch with neither an answer nor a reported failure (an iteration lost
// between the Map and reduce) counts as failed: the result never claims
// more than the map stage delivered.
func TestReduceCountsLostBatchAsFailed(t *testing.T) {
	tests := []struct {
		name       string
		mapped     []int
		reported   []gs.BatchFailure
		wantStatus gs.Status
		wantKind   gs.Kind
		wantFailed []int
		wantMsg    map[int]string
	}{
		{name: "one of three lost", mapped: []int{0, 2},
			wantStatus: gs.StatusPartial, wantFailed: []int{1},
			wantMsg: map[int]string{1: "no map answer was recorded for this batch"}},
		{name: "one lost, one reported", mapped: []int{2},
			reported:   []gs.BatchFailure{{BatchIndex: 0, Message: "model unavailable", Attempts: 2}},
			wantStatus: gs.StatusPartial, wantFailed: []int{0, 1},
			wantMsg: map[int]string{0: "model unavailable", 1: "no map answer was recorded for this batch"}},
		{name: "every batch lost", wantStatus: gs.StatusFailed, wantKind: gs.KindAllBatchesFailed, wantFailed: []int{0, 1, 2},
			wantMsg: map[int]string{0: "no map answer was recorded for this batch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, s := newEngine(t, leafNamespace(3), &fakeModel{complete: answerEverything})
			p := oneBatchPerSummary(t, "q?", nil)
			out, err := e.Prepare(ctx, p)
			require.NoError(t, err)
			require.Equal(t, 3, out.BatchCount)
			for _, i := range tc.mapped {
				_, err := e.MapBatch(ctx, p.QueryID, out.RunID, i, 1)
				require.NoError(t, err)
			}
			res, err := e.Reduce(ctx, p.QueryID, out.RunID, tc.reported)
			if tc.wantKind != gs.KindInternal {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, gs.KindOf(err))
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantStatus, res.Status)
			assert.Equal(t, len(tc.wantFailed), res.FailedMapBatches)
			var failed []int
			for _, f := range res.MapErrors {
				failed = append(failed, f.BatchIndex)
				assert.Equal(t, res.Diagnostics.Batches[f.BatchIndex].CommunityIDs, f.CommunityIDs, "a failure names its batch's communities")
				if msg, ok := tc.wantMsg[f.BatchIndex]; ok {
					assert.Equal(t, msg, f.Message)
				}
			}
			assert.Equal(t, tc.wantFailed, failed)
			assert.Len(t, res.SelectedMapAnswers, len(tc.mapped))
			stored, err := s.Result(ctx, p.QueryID)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, stored.Status)
			assert.Equal(t, res.MapErrors, stored.MapErrors)
		})
	}
}

// docs/contract.md#map-calls through Search: a batch whose first attempt fails is answered
// by its second, and the answer, the diagnostics and the stored run all
// say it took two attempts.
func TestSecondMapAttemptIsRecorded(t *testing.T) {
	tests := []struct {
		name  string
		first string // what the first call of batch c1 returns; "" fails the call
	}{
		{"first call fails", ""},
		{"first output invalid", `{"answer":"","usefulness":10}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			tried := map[string]int{}
			model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce {
					return answerEverything(req, call)
				}
				id := req.Content[strings.Index(req.Content, "Community ID: ")+len("Community ID: "):]
				id = id[:strings.Index(id, " ")]
				mu.Lock()
				tried[id]++
				n := tried[id]
				mu.Unlock()
				if id == "c1" && n == 1 {
					if tc.first == "" {
						return gs.ModelResponse{}, errors.New("transient")
					}
					return text(tc.first)
				}
				return text(fmt.Sprintf(`{"answer":"answer of %s, attempt %d","usefulness":60}`, id, n))
			}}
			e, s := newEngine(t, leafNamespace(3), model)
			p := oneBatchPerSummary(t, "q?", nil)
			res, err := e.Search(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, gs.StatusCompleted, res.Status)
			run := readRun(t, s, p.QueryID)
			require.Len(t, run.answers, 3)
			attempts := map[int]int{}
			for _, a := range run.answers {
				attempts[a.BatchIndex] = a.Attempts
			}
			assert.Equal(t, map[int]int{0: 1, 1: 2, 2: 1}, attempts)
			assert.Equal(t, "answer of c1, attempt 2", run.answers[slices.IndexFunc(run.answers, func(a gs.MapAnswer) bool { return a.BatchIndex == 1 })].Answer)
			assert.Equal(t, 4, model.count(gs.StageMap))
			assert.Equal(t, 4, res.Diagnostics.Map.ModelCalls, "every attempt is a model call")
			assert.Equal(t, 5, res.Diagnostics.ModelCalls)
			assert.Equal(t, 0, res.FailedMapBatches)
		})
	}
}

// A second attempt of a batch whose first attempt already saved an answer
// (the success never reached the state machine) replaces that answer: one
// answer per batch, the second attempt's, with its attempt number.
func TestSecondMapAttemptReplacesTheFirst(t *testing.T) {
	ctx := context.Background()
	model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageReduce {
			return answerEverything(req, call)
		}
		return text(fmt.Sprintf(`{"answer":"call %d","usefulness":%d}`, call, 10*call))
	}}
	e, s := newEngine(t, leafNamespace(1), model)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e.Now = func() time.Time { return at }
	p := oneBatchPerSummary(t, "q?", nil)
	out, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	for attempt := 1; attempt <= gs.MapAttempts; attempt++ {
		a, err := e.MapBatch(ctx, p.QueryID, out.RunID, 0, attempt)
		require.NoError(t, err)
		assert.Equal(t, attempt, a.Attempts)
	}
	answers, err := s.MapAnswers(ctx, p.QueryID, out.RunID)
	require.NoError(t, err)
	require.Len(t, answers, 1)
	assert.Equal(t, gs.MapAnswer{BatchIndex: 0, CommunityIDs: []string{"c0"}, Answer: "call 2", Usefulness: 20,
		Attempts: 2, InputTokens: 10, OutputTokens: 2, CalledAt: at, AnsweredAt: at}, answers[0])

	res, err := e.Reduce(ctx, p.QueryID, out.RunID, nil)
	require.NoError(t, err)
	assert.Equal(t, []gs.MapScore{{BatchIndex: 0, Usefulness: 20}}, res.Diagnostics.MapScores)
	assert.Equal(t, 2, res.Diagnostics.Map.ModelCalls)
}
