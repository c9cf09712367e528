package globalsearch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// fakeModel is a scripted model: complete decides each call's outcome. It
// counts calls per stage and the most calls ever in flight at once.
type fakeModel struct {
	complete func(req gs.ModelRequest, call int) (gs.ModelResponse, error)

	mu          sync.Mutex
	calls       map[gs.Stage]int
	inFlight    int
	maxInFlight int
	delay       time.Duration
}

func (m *fakeModel) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[gs.Stage]int{}
	}
	m.calls[req.Stage]++
	call := m.calls[req.Stage]
	m.inFlight++
	m.maxInFlight = max(m.maxInFlight, m.inFlight)
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.inFlight--; m.mu.Unlock() }()
	if m.delay > 0 {
		time.Sleep(m.delay)
	}
	return m.complete(req, call)
}

func (m *fakeModel) count(s gs.Stage) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[s]
}

func text(s string) (gs.ModelResponse, error) {
	return gs.ModelResponse{Text: s, InputTokens: 10, OutputTokens: 2}, nil
}

// answerEverything answers every map call with usefulness 50 and every
// reduce call with a fixed answer.
func answerEverything(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return text(`{"answer":"Synthesised answer"}`)
	}
	return text(`{"answer":"Partial answer","usefulness":50}`)
}

// oneBatchPerSummary returns a request whose map budget fits one summary of
// summaryText's size but never two, so each summary is its own batch.
func oneBatchPerSummary(t *testing.T, query string, extra func(*gs.Request)) gs.Params {
	t.Helper()
	skeleton := tokens.Estimate(gs.DefaultPrompts().Map.Skeleton(query))
	budget, reserve := skeleton+150, 0
	req := gs.Request{Query: query, MapTokenBudget: &budget, MapOutputReserve: &reserve}
	noShuffle := false
	req.Shuffle = &noShuffle
	if extra != nil {
		extra(&req)
	}
	p, err := req.Params(gs.SpecDefaults)
	require.NoError(t, err)
	return p
}

var summaryText = strings.Repeat("Fishery output rose while prices fell. ", 10)

func leafNamespace(n int) gs.Records {
	var r gs.Records
	for i := range n {
		r.Summaries = append(r.Summaries, gs.Summary{ID: fmt.Sprintf("c%d", i), Level: 0, Summary: summaryText})
	}
	return r
}

func newEngine(t *testing.T, records gs.Records, model gs.Model) (*gs.Engine, *memstore.Store) {
	t.Helper()
	s := memstore.New()
	if len(records.Summaries) > 0 { // else the namespace stays empty: no replacement empties one
		require.NoError(t, s.ReplaceNamespace(context.Background(), "default", records))
	}
	return &gs.Engine{Index: s, Runs: s, Model: model}, s
}

func TestSearchPaths(t *testing.T) {
	tests := []struct {
		name          string
		records       gs.Records
		params        func(t *testing.T) gs.Params
		complete      func(req gs.ModelRequest, call int) (gs.ModelResponse, error)
		wantStatus    gs.Status
		wantMapCalls  int
		wantReduce    int
		wantErrKind   gs.Kind
		wantErrText   string
		wantFailed    int
		wantAnswer    string
		wantBatches   int
		wantSummaries int
	}{
		{
			name: "spec: two level-2 summaries in one batch -> 2 calls, completed",
			records: gs.Records{Summaries: []gs.Summary{
				{ID: "root", Level: 0, Summary: "Root"},
				{ID: "mid", Level: 1, ParentCommunityID: "root", Summary: "Mid"},
				{ID: "a", Level: 2, ParentCommunityID: "mid", Summary: "Fisheries grew."},
				{ID: "b", Level: 2, ParentCommunityID: "mid", Summary: "Ports expanded."},
			}},
			params: func(t *testing.T) gs.Params {
				level := gs.Level(2)
				p, err := gs.Request{Query: "What grew?", CommunityLevel: &level}.Params(gs.SpecDefaults)
				require.NoError(t, err)
				return p
			},
			complete:   answerEverything,
			wantStatus: gs.StatusCompleted, wantMapCalls: 1, wantReduce: 1, wantBatches: 1, wantSummaries: 2,
			wantAnswer: "Synthesised answer",
		},
		{
			name:       "spec: empty namespace -> no_results, no model call",
			params:     func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "anything?", nil) },
			complete:   answerEverything,
			wantStatus: gs.StatusNoResults, wantAnswer: gs.NoResultsAnswer,
		},
		{
			name:    "spec: every answer scored 0 -> no_results after exactly 1 call",
			records: leafNamespace(1),
			params:  func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "unrelated?", nil) },
			complete: func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
				return text(`{"answer":"","usefulness":0}`)
			},
			wantStatus: gs.StatusNoResults, wantMapCalls: 1, wantAnswer: gs.NoResultsAnswer, wantBatches: 1, wantSummaries: 1,
		},
		{
			name:    "spec: every batch failing twice -> the search fails and says so",
			records: leafNamespace(2),
			params:  func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "q?", nil) },
			complete: func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
				return gs.ModelResponse{}, errors.New("model unavailable")
			},
			wantStatus: gs.StatusFailed, wantMapCalls: 4, wantErrKind: gs.KindAllBatchesFailed,
			wantErrText: "every map batch failed (2 batches): batches 0-1 (2): model unavailable",
			wantFailed:  2, wantBatches: 2, wantSummaries: 2,
		},
		{
			name:    "spec: one of three batches failing twice -> partial",
			records: leafNamespace(3),
			params:  func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "q?", nil) },
			complete: func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
				if strings.Contains(req.Content, "Community ID: c1 ") {
					return text("I cannot answer that")
				}
				return answerEverything(req, 0)
			},
			wantStatus: gs.StatusPartial, wantMapCalls: 4, wantReduce: 1, wantFailed: 1, wantBatches: 3, wantSummaries: 3,
			wantAnswer: "Synthesised answer",
		},
		{
			name:    "reduce failing once is retried",
			records: leafNamespace(1),
			params:  func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "q?", nil) },
			complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce && call == 1 {
					return text(`{"result":"wrong key"}`)
				}
				return answerEverything(req, call)
			},
			wantStatus: gs.StatusCompleted, wantMapCalls: 1, wantReduce: 2, wantBatches: 1, wantSummaries: 1,
			wantAnswer: "Synthesised answer",
		},
		{
			name:    "reduce failing twice fails the search",
			records: leafNamespace(1),
			params:  func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "q?", nil) },
			complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce {
					return text(`{"answer":"   "}`)
				}
				return answerEverything(req, call)
			},
			wantStatus: gs.StatusFailed, wantMapCalls: 1, wantReduce: 2, wantBatches: 1, wantSummaries: 1,
			wantErrKind: gs.KindModelOutput, wantErrText: "reduce attempt 2: reduce output contains an invalid answer",
		},
		{
			name: "level that exists nowhere -> no_results naming the levels",
			records: gs.Records{Summaries: []gs.Summary{
				{ID: "r", Level: 0, Summary: "Root"}, {ID: "l", Level: 1, ParentCommunityID: "r", Summary: "Leaf"},
			}},
			params: func(t *testing.T) gs.Params {
				return oneBatchPerSummary(t, "q?", func(r *gs.Request) { l := gs.Level(7); r.CommunityLevel = &l })
			},
			complete:   answerEverything,
			wantStatus: gs.StatusNoResults, wantAnswer: gs.NoResultsAnswer,
		},
		{
			name: "a cycle is a corrupt index naming the ids",
			records: gs.Records{Summaries: []gs.Summary{
				{ID: "a", Level: 0, ParentCommunityID: "b", Summary: "A"}, {ID: "b", Level: 1, ParentCommunityID: "a", Summary: "B"},
			}},
			params:      func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "q?", nil) },
			complete:    answerEverything,
			wantStatus:  gs.StatusFailed,
			wantErrKind: gs.KindCorruptIndex, wantErrText: "corrupt index: parentCommunityId links form a cycle: a -> b -> a",
		},
		{
			name: "a missing parent is a corrupt index naming the ids",
			records: gs.Records{Summaries: []gs.Summary{
				{ID: "a", Level: 1, ParentCommunityID: "ghost", Summary: "A"},
			}},
			params:      func(t *testing.T) gs.Params { return oneBatchPerSummary(t, "q?", nil) },
			complete:    answerEverything,
			wantStatus:  gs.StatusFailed,
			wantErrKind: gs.KindCorruptIndex, wantErrText: "corrupt index: parentCommunityId names no summary: a -> ghost",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: tc.complete}
			e, s := newEngine(t, tc.records, model)
			p := tc.params(t)
			res, err := e.Search(context.Background(), p)
			if tc.wantErrKind != gs.KindInternal {
				require.Error(t, err)
				assert.Equal(t, tc.wantErrKind, gs.KindOf(err))
				assert.Equal(t, tc.wantErrText, err.Error())
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantStatus, res.Status)
			assert.Equal(t, tc.wantAnswer, res.Answer)
			assert.Equal(t, tc.wantMapCalls, model.count(gs.StageMap), "map calls")
			assert.Equal(t, tc.wantReduce, model.count(gs.StageReduce), "reduce calls")
			assert.Equal(t, tc.wantMapCalls+tc.wantReduce, res.Diagnostics.ModelCalls, "modelCalls diagnostic")
			assert.Equal(t, tc.wantFailed, res.FailedMapBatches)
			assert.Len(t, res.MapErrors, tc.wantFailed)
			assert.Equal(t, tc.wantBatches, res.Diagnostics.BatchCount)
			assert.Equal(t, tc.wantSummaries, res.Diagnostics.SummaryCount)
			assert.Equal(t, p.ShuffleSeed, res.Diagnostics.ShuffleSeed)
			if tc.wantStatus == gs.StatusFailed {
				assert.NotEmpty(t, res.Error)
			}

			stored, err := s.Result(context.Background(), p.QueryID)
			require.NoError(t, err, "every run, failed ones included, leaves its result in the runs store")
			assert.Equal(t, res.Status, stored.Status)
		})
	}
}

func TestSearchResultDiagnostics(t *testing.T) {
	model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageMap && strings.Contains(req.Content, "Community ID: c2 ") {
			return text(`{"answer":"","usefulness":0}`)
		}
		if req.Stage == gs.StageMap {
			return text(fmt.Sprintf(`{"answer":"answer %d","usefulness":%d}`, call, 10*call))
		}
		return answerEverything(req, call)
	}}
	e, _ := newEngine(t, leafNamespace(3), model)
	e.Now = func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { c := 1; r.MapConcurrency = &c })
	res, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Equal(t, p.QueryID, res.QueryID)
	assert.Equal(t, "q?", res.Query)
	assert.Equal(t, "default", res.Namespace)
	assert.Equal(t, gs.LeafLevel, res.CommunityLevel)
	require.Len(t, res.SelectedMapAnswers, 2)
	assert.Equal(t, "answer 2", res.SelectedMapAnswers[0].Answer, "higher usefulness first")
	assert.Equal(t, []string{"c1"}, res.SelectedMapAnswers[0].CommunityIDs)
	assert.Equal(t, 2, res.Diagnostics.SelectedAnswerCount)
	assert.Len(t, res.Diagnostics.MapScores, 3)
	assert.Len(t, res.Diagnostics.Batches, 3)
	for _, b := range res.Diagnostics.Batches {
		assert.LessOrEqual(t, b.EstimatedTokens, p.MapPromptBudget())
	}
	assert.Positive(t, res.Diagnostics.ReducePromptTokens)
	assert.Equal(t, 4, res.Diagnostics.ModelCalls)
	assert.Equal(t, 40, res.Diagnostics.InputTokens)
	assert.Equal(t, 8, res.Diagnostics.OutputTokens)
	assert.Equal(t, gs.StageUsage{ModelCalls: 3, InputTokens: 30, OutputTokens: 6}, res.Diagnostics.Map)
	assert.False(t, res.Diagnostics.StartedAt.IsZero())
	assert.False(t, res.Diagnostics.FinishedAt.IsZero())
}

func TestMapRunnerSpecCase(t *testing.T) {
	// docs/contract.md#pinned-cases: 3 batches, concurrency 2, the first call fails -> 3 answers,
	// 0 errors, 4 calls, never more than 2 in flight.
	model := &fakeModel{delay: 5 * time.Millisecond, complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageMap && call == 1 {
			return gs.ModelResponse{}, errors.New("transient")
		}
		return answerEverything(req, call)
	}}
	e, s := newEngine(t, leafNamespace(3), model)
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { c := 2; r.MapConcurrency = &c })
	res, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	plan, err := s.Plan(context.Background(), p.QueryID)
	require.NoError(t, err)
	answers, err := s.MapAnswers(context.Background(), p.QueryID, plan.RunID)
	require.NoError(t, err)
	assert.Len(t, answers, 3)
	for i, a := range answers {
		assert.Equal(t, i, a.BatchIndex, "answers are kept by batch index")
	}
	assert.Equal(t, 0, res.FailedMapBatches)
	assert.Equal(t, 4, model.count(gs.StageMap))
	assert.LessOrEqual(t, model.maxInFlight, 2)
}

func TestMapConcurrencyNeverExceeded(t *testing.T) {
	tests := []struct{ batches, concurrency, wantMax int }{
		{10, 4, 4}, {3, 8, 3}, {7, 1, 1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d batches at %d", tc.batches, tc.concurrency), func(t *testing.T) {
			model := &fakeModel{delay: 3 * time.Millisecond, complete: answerEverything}
			e, _ := newEngine(t, leafNamespace(tc.batches), model)
			p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.MapConcurrency = &tc.concurrency })
			_, err := e.Search(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, tc.batches, model.count(gs.StageMap))
			assert.LessOrEqual(t, model.maxInFlight, tc.wantMax)
		})
	}
}

func TestSearchCancelledMakesNoMoreCalls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	model := &fakeModel{complete: func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
		calls.Add(1)
		cancel()
		return gs.ModelResponse{}, context.Canceled
	}}
	e, s := newEngine(t, leafNamespace(5), model)
	e.Runs = ctxCheckingRuns{s}
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { c := 1; r.MapConcurrency = &c })
	_, err := e.Search(ctx, p)
	require.Error(t, err)
	assert.Equal(t, int32(1), calls.Load())
	stored, err := s.Result(context.Background(), p.QueryID)
	require.NoError(t, err, "a run whose context ended still records that it failed")
	assert.Equal(t, gs.StatusFailed, stored.Status)
	// The call the cancel cut short is spent all the same (docs/contract.md#cancel).
	assert.Equal(t, 1, stored.Diagnostics.ModelCalls)
	assert.Equal(t, 1, stored.Diagnostics.Map.ModelCalls)
	require.Len(t, stored.MapErrors, 5)
	assert.Equal(t, 1, stored.MapErrors[0].Attempts, "the batch whose call was in flight")
	assert.Zero(t, stored.MapErrors[1].Attempts, "a batch never started")
}

// ctxCheckingRuns refuses writes under an ended context, as a real store does.
type ctxCheckingRuns struct{ *memstore.Store }

func (r ctxCheckingRuns) SaveResult(ctx context.Context, res gs.Result, runID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.Store.SaveResult(ctx, res, runID)
}
