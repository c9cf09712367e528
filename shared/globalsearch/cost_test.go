package globalsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

var testPrices = &gs.Prices{Map: gs.Price{In: 0.25, Out: 1.25}, Reduce: gs.Price{In: 3, Out: 15}}

// A plan whose worst case passes maxCostUsd is refused before any model
// call, and one that meets it exactly runs (docs/contract.md#cost-ceiling),
// as the model-call ceiling is held (TestPlanRefusedOverTheModelCallCeiling).
func TestCostCeilingRefusedBeforeAnyModelCall(t *testing.T) {
	const summaries = 5
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", leafNamespace(summaries)))
	free := oneBatchPerSummary(t, "q?", nil)
	plan, err := (&gs.Engine{Index: s}).Plan(context.Background(), free)
	require.NoError(t, err)
	require.Len(t, plan.Batches, summaries)
	worst := testPrices.WorstCase(free, plan.MapInputTokens(), len(plan.Batches))
	once := testPrices.PlanCost(free, plan.MapInputTokens(), len(plan.Batches), 1, 1)
	require.InDelta(t, 2*once.Total(), worst.Total(), 1e-9, "two attempts of every call")

	tests := []struct {
		name    string
		ceiling float64
		wantErr string
	}{
		{"meets it", worst.Total(), ""},
		{"a cent under", worst.Total() - 0.01, fmt.Sprintf("the plan's worst case costs $%s (map $%s over 5 map batches with every retry, reduce $%s), but this run may cost at most $",
			usdText(worst.Total()), usdText(worst.Map), usdText(worst.Reduce))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ceiling := tc.ceiling
			p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.MaxCostUSD = &ceiling })
			model := &fakeModel{complete: answerEverything}
			e := &gs.Engine{Index: s, Runs: memstore.New(), Model: model, Prices: testPrices}
			res, err := e.Search(context.Background(), p)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, gs.StatusCompleted, res.Status)
				assert.Equal(t, summaries, model.calls[gs.StageMap])
				return
			}
			require.Error(t, err)
			assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err))
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Contains(t, err.Error(), "raise maxCostUsd")
			assert.Empty(t, model.calls, "refused before any model call")
			assert.Equal(t, gs.StatusFailed, res.Status, "the run records why")
		})
	}
}

func usdText(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// A cost ceiling the engine cannot price is refused before any read.
func TestCostCeilingNeedsPrices(t *testing.T) {
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", leafNamespace(2)))
	idx := &countingIndex{Index: s}
	ceiling := 1.5
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.MaxCostUSD = &ceiling })
	_, err := (&gs.Engine{Index: idx}).Plan(context.Background(), p)
	require.Error(t, err)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Contains(t, err.Error(), "maxCostUsd 1.5 needs the models' prices, and none are set")
	assert.Zero(t, idx.reads)
}

func TestMaxCostUSDRequestRules(t *testing.T) {
	deployment := gs.SpecDefaults
	deployment.MaxCostUSD = 2
	tests := []struct {
		name     string
		defaults gs.Defaults
		body     string
		want     float64
		wantErr  string
	}{
		{"absent: none", gs.SpecDefaults, `{"query":"q"}`, 0, ""},
		{"absent takes the deployment's", deployment, `{"query":"q"}`, 2, ""},
		{"lower is kept", deployment, `{"query":"q","maxCostUsd":0.05}`, 0.05, ""},
		{"above the deployment's", deployment, `{"query":"q","maxCostUsd":2.5}`, 0,
			"maxCostUsd 2.5 is above this deployment's ceiling of $2 per run: ask for at most 2, or raise the deployment's MaxCostUsd"},
		{"zero", gs.SpecDefaults, `{"query":"q","maxCostUsd":0}`, 0, "maxCostUsd must be a positive number of US dollars"},
		{"negative", gs.SpecDefaults, `{"query":"q","maxCostUsd":-1}`, 0, "maxCostUsd must be a positive number of US dollars"},
		{"a string", gs.SpecDefaults, `{"query":"q","maxCostUsd":"1"}`, 0, "maxCostUsd must be a positive number of US dollars"},
		{"null", gs.SpecDefaults, `{"query":"q","maxCostUsd":null}`, 0, "maxCostUsd must be a positive number of US dollars"},
		{"NaN", gs.SpecDefaults, `{"query":"q","maxCostUsd":NaN}`, 0, "maxCostUsd must be a positive number of US dollars"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gs.ParseRequest([]byte(tc.body), tc.defaults)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.MaxCostUSD)
			stored, err := json.Marshal(p)
			require.NoError(t, err)
			again, err := gs.ParseRequest(stored, tc.defaults)
			require.NoError(t, err)
			assert.True(t, p.SameRequest(again))
		})
	}
	_, err := gs.DefaultsFromEnv(func(k string) (string, bool) { return "free", k == "GRAPHRAG_MAX_COST_USD" })
	assert.EqualError(t, err, "GRAPHRAG_MAX_COST_USD: maxCostUsd must be a positive number of US dollars")
}

// stageModel answers one stage and fails the test on the other.
type stageModel struct {
	t     *testing.T
	stage gs.Stage
	fakeModel
}

func (m *stageModel) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	assert.Equal(m.t, m.stage, req.Stage, "a call reached the other stage's model")
	return m.fakeModel.Complete(ctx, req)
}

// The map calls go to Model and the reduce call to ReduceModel
// (docs/contract.md#stage-models); the result prices each stage's
// reported tokens at its own model's prices (docs/contract.md#cost).
func TestStageModelsAndCost(t *testing.T) {
	withTokens := func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		resp, err := answerEverything(req, call)
		resp.InputTokens, resp.OutputTokens = 1000, 100
		return resp, err
	}
	mapModel := &stageModel{t: t, stage: gs.StageMap, fakeModel: fakeModel{complete: withTokens}}
	reduceModel := &stageModel{t: t, stage: gs.StageReduce, fakeModel: fakeModel{complete: withTokens}}
	e, _ := newEngine(t, leafNamespace(3), mapModel)
	e.ReduceModel, e.Prices = reduceModel, testPrices
	res, err := e.Search(context.Background(), oneBatchPerSummary(t, "q?", nil))
	require.NoError(t, err)
	assert.Equal(t, 3, mapModel.calls[gs.StageMap])
	assert.Equal(t, 1, reduceModel.calls[gs.StageReduce])
	require.NotNil(t, res.Diagnostics.Cost)
	assert.InDelta(t, 3*(1*0.25+0.1*1.25), res.Diagnostics.Cost.Map, 1e-9)
	assert.InDelta(t, 1*3+0.1*15, res.Diagnostics.Cost.Reduce, 1e-9)

	e.ReduceModel, e.Prices = nil, nil
	both := &fakeModel{complete: answerEverything}
	e.Model = both
	p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { id := "q-one-model"; r.QueryID = id })
	res, err = e.Search(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, 1, both.calls[gs.StageReduce], "without ReduceModel the one model reduces")
	assert.Nil(t, res.Diagnostics.Cost, "no prices, no cost")
}

// A dynamic selection's rating calls count against maxCostUsd, priced as
// map-stage calls (docs/contract.md#cost-ceiling): a run whose worst case
// of rating (every community relevant) with one map batch and the reduce
// passes the ceiling is refused before any call, and one whose rating
// calls spent so much that the map of what they selected passes what is
// left is refused before any map call.
func TestDynamicSelectionCostCeiling(t *testing.T) {
	const costlyTokens = 10_000_000 // $2,500 a rating call at the test's map price
	tests := []struct {
		name          string
		ceiling       float64
		reportedIn    int
		wantErr       string
		wantRateCalls int
	}{
		{"the worst case of rating passes it", 0.000001, 0, "dynamic selection may cost $", 0},
		// Two rating calls, each 10,000,000 tokens in at $0.25/1k and 2 out at $1.25/1k.
		{"what the rating calls spent passes it", 1000, costlyTokens, "beside the $5000.005 the rating calls spent, but this run may cost at most $1000: raise maxCostUsd or ratingThreshold", 2},
		{"both fit", 1000, 0, "", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rate := rater(map[string]int{"a": 5, "a1": 5}, nil)
			model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				resp, err := rate(req, call)
				if req.Stage == gs.StageRate && tc.reportedIn > 0 {
					resp.InputTokens = tc.reportedIn
				}
				return resp, err
			}}
			e, _ := newEngine(t, forest(), model)
			e.Prices = testPrices
			res, err := e.Search(context.Background(), dynamicParams(t, fmt.Sprintf(`,"maxCostUsd":%v`, tc.ceiling)))
			assert.Equal(t, tc.wantRateCalls, model.count(gs.StageRate))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Zero(t, model.count(gs.StageMap), "refused before any map call")
				assert.Equal(t, gs.StatusFailed, res.Status)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, gs.StatusCompleted, res.Status)
		})
	}
}

// RatingCost prices what the rating calls reported, and a model that
// reports nothing as the most each call could be.
func TestRatingCost(t *testing.T) {
	p := oneBatchPerSummary(t, "q?", nil)
	tests := []struct {
		name   string
		report gs.SelectionReport
		want   float64
	}{
		{"reported", gs.SelectionReport{RatingCalls: 2, RatingInputTokens: 4000, RatingOutputTokens: 800}, 4*0.25 + 0.8*1.25},
		{"unreported", gs.SelectionReport{RatingCalls: 3},
			float64(3*p.MapPromptBudget())/1000*0.25 + float64(3*p.MapOutputReserve)/1000*1.25},
		{"no call", gs.SelectionReport{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, testPrices.RatingCost(p, tc.report), 1e-9)
		})
	}
}
