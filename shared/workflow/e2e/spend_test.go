package e2e

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// usageModel answers like healthyModel, each call reporting usage of its
// own (map batch i: 1000+7i tokens in, 40+i out; reduce 3000 in, 200 out),
// and records what it reported by function, so a case prices the run
// from the fake's report, not from the result it checks.
type usageModel struct {
	mu       sync.Mutex
	reported map[string]globalsearch.StageUsage
}

func (u *usageModel) reply(call modelCall) modeltest.ConverseReply {
	in, out := 1000+7*call.Batch, 40+call.Batch
	if call.Function == "reduce" {
		in, out = 3000, 200
	}
	rep := healthyModel(call)
	rep.InputTokens, rep.OutputTokens = in, out
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.reported[call.Function]
	s.ModelCalls++
	s.InputTokens += in
	s.OutputTokens += out
	u.reported[call.Function] = s
	return rep
}

// TestSpendPerStageOnAWS: a deployment with a model and prices per stage
// (docs/contract.md#cost) sends every map call to the map model and the
// reduce call to the reduce model, keys the map cache by the map model, and
// prices each stage of the result in the runs table at its own model's
// prices. The request's maxCostUsd is exactly the plan's worst case: the
// ceiling admits a plan that reaches it (docs/contract.md#cost-ceiling).
func TestSpendPerStageOnAWS(t *testing.T) {
	t.Parallel()
	e := newSpendEnv(t, spendDeployment(true))
	const summaries = 3
	usage := &usageModel{reported: map[string]globalsearch.StageUsage{}}
	queryID, namespace := e.spendCase(t, "per stage", summaries)
	input := request(queryID, namespace)
	worst := e.worstCase(t, input)
	input["maxCostUsd"] = worst.Total()
	x := e.execute(t, queryID, input, usage.reply)

	require.Equal(t, sfntypes.ExecutionStatusSucceeded, x.out.Status, aws.ToString(x.out.Cause))
	require.Equal(t, globalsearch.StatusCompleted, x.res.Status, x.res.Error)
	assert.Equal(t, map[string]int{}, x.errors, "failed tasks by error name")
	plan, err := e.runs.Plan(context.Background(), x.res.QueryID)
	require.NoError(t, err)
	assert.Equal(t, worst.Total(), plan.Params.MaxCostUSD, "the request's ceiling reached prepare")

	byFunction := map[string][]string{}
	for _, c := range x.calls {
		byFunction[c.Header.Get(headerFunction)] = append(byFunction[c.Header.Get(headerFunction)], c.ModelID)
	}
	assert.Equal(t, map[string][]string{
		"map":    {spendMapModel, spendMapModel, spendMapModel},
		"reduce": {spendReduceModel},
	}, byFunction, "the model each function's calls went to (POST /model/{id}/converse)")

	// The map cache keys by the map model (docs/contract.md#map-cache):
	// each map call's answer is under the key of its prompt and the map
	// model, and under no other model's key.
	ctx := context.Background()
	for _, c := range x.calls {
		if c.Header.Get(headerFunction) != "map" {
			continue
		}
		prompt, maxTokens := conversePrompt(t, c)
		_, hit, err := e.cache.CachedMapAnswer(ctx, globalsearch.MapCacheKey(spendMapModel, prompt, maxTokens))
		require.NoError(t, err)
		assert.True(t, hit, "batch %s: cached under the map model's key", c.Header.Get(headerBatch))
		for _, other := range []string{modelID, spendReduceModel} {
			_, hit, err := e.cache.CachedMapAnswer(ctx, globalsearch.MapCacheKey(other, prompt, maxTokens))
			require.NoError(t, err)
			assert.False(t, hit, "batch %s: nothing cached under %s", c.Header.Get(headerBatch), other)
		}
	}

	usage.mu.Lock()
	reported := usage.reported
	usage.mu.Unlock()
	require.Equal(t, summaries, reported["map"].ModelCalls)
	require.Equal(t, 1, reported["reduce"].ModelCalls)
	d := x.res.Diagnostics
	require.NotNil(t, d.Cost, "a priced deployment's result has a cost")
	wantMap := float64(reported["map"].InputTokens)/1000*spendPrices.Map.In + float64(reported["map"].OutputTokens)/1000*spendPrices.Map.Out
	wantReduce := float64(reported["reduce"].InputTokens)/1000*spendPrices.Reduce.In + float64(reported["reduce"].OutputTokens)/1000*spendPrices.Reduce.Out
	assert.InDelta(t, wantMap, d.Cost.Map, 1e-12, "map: the map model's prices times the tokens the map calls reported")
	assert.InDelta(t, wantReduce, d.Cost.Reduce, 1e-12, "reduce: the reduce model's prices times the tokens the reduce call reported")
	assert.Less(t, d.Cost.Total(), worst.Total(), "what the run spent is within its worst case")
	t.Logf("per-stage run: map calls %d to %s, reduce call to %s; cost map $%.8f reduce $%.8f; worst case $%.8f",
		reported["map"].ModelCalls, spendMapModel, spendReduceModel, d.Cost.Map, d.Cost.Reduce, worst.Total())
}

// conversePrompt is the rendered prompt and maxTokens a Converse call sent.
func conversePrompt(t *testing.T, c modeltest.ConverseCall) (string, int) {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
		InferenceConfig struct {
			MaxTokens int `json:"maxTokens"`
		} `json:"inferenceConfig"`
	}
	raw, err := json.Marshal(c.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &body))
	require.Len(t, body.Messages, 1)
	require.Len(t, body.Messages[0].Content, 1)
	return body.Messages[0].Content[0].Text, body.InferenceConfig.MaxTokens
}

// usdText is how an error names an amount of dollars it computed: to a
// millionth, as short as it reads.
func usdText(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// TestSpendCeilingOnAWS: the cost ceiling refuses a run in prepare, before
// any map invocation or model call, and the runs table says why
// (docs/contract.md#cost-ceiling): a plan whose worst case passes the
// request's maxCostUsd is too large; a maxCostUsd above the deployment's
// MaxCostUsd, or one on a deployment without prices, is invalid input. The
// API refuses what it can judge without a plan (a ceiling above the
// deployment's or without prices, 400); what it starts, prepare refuses. A request the API
// refused is still run, as a schedule or another state machine starts one
// without the API, so prepare's own check is the one pinned.
func TestSpendCeilingOnAWS(t *testing.T) {
	t.Parallel()
	priced := newSpendEnv(t, spendDeployment(true))
	unpriced := newSpendEnv(t, spendDeployment(false))
	cases := []struct {
		name string
		env  *spendEnv
		// maxCost is the request's maxCostUsd, given the plan's worst case
		// (0 when the deployment has no prices to compute one).
		maxCost   func(worst float64) float64
		wantAPI   int // POST's status
		wantError string
		// wantMessage are parts of the failed result's error.
		wantMessage func(worst, maxCost float64) []string
	}{
		{
			name:      "worst case passes maxCostUsd",
			env:       priced,
			maxCost:   func(worst float64) float64 { return worst / 2 },
			wantAPI:   http.StatusAccepted,
			wantError: "PlanTooLargeError",
			wantMessage: func(worst, maxCost float64) []string {
				return []string{"the plan's worst case costs $" + usdText(worst) + " ", "over 3 map batches with every retry",
					"may cost at most $" + strconv.FormatFloat(maxCost, 'f', -1, 64) + ": raise maxCostUsd"}
			},
		},
		{
			name:      "maxCostUsd above the deployment ceiling",
			env:       priced,
			maxCost:   func(float64) float64 { return 2 * spendMaxCostUSD },
			wantAPI:   http.StatusBadRequest,
			wantError: "InvalidInputError",
			wantMessage: func(float64, float64) []string {
				return []string{"maxCostUsd 2 is above this deployment's ceiling of $1 per run", "raise the deployment's MaxCostUsd"}
			},
		},
		{
			name:      "maxCostUsd without prices",
			env:       unpriced,
			maxCost:   func(float64) float64 { return 0.5 },
			wantAPI:   http.StatusBadRequest,
			wantError: "InvalidInputError",
			wantMessage: func(float64, float64) []string {
				return []string{"maxCostUsd 0.5 needs the models' prices, and none are set", "MapPriceIn, MapPriceOut, ReducePriceIn and ReducePriceOut"}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := tc.env
			queryID, namespace := e.spendCase(t, tc.name, 3)
			body := request(queryID, namespace)
			var worst float64
			if e.prepare.Prices != nil {
				worst = e.worstCase(t, body).Total()
			}
			maxCost := tc.maxCost(worst)
			body["maxCostUsd"] = maxCost

			status, name, input, reply := e.post(t, namespace, body)
			require.Equal(t, tc.wantAPI, status, reply)
			var x spendRun
			if status == http.StatusAccepted {
				require.Equal(t, queryID, name, "the API names the execution by the query id")
				x = e.execute(t, name, input, healthyModel)
			} else {
				for _, part := range tc.wantMessage(worst, maxCost) {
					assert.Contains(t, reply, part, "the API's refusal says why")
				}
				x = e.execute(t, queryID, body, healthyModel)
			}

			require.Equal(t, sfntypes.ExecutionStatusFailed, x.out.Status)
			assert.Equal(t, tc.wantError, aws.ToString(x.out.Error), "cause: %s", aws.ToString(x.out.Cause))
			assert.Equal(t, globalsearch.StatusFailed, x.res.Status)
			for _, part := range tc.wantMessage(worst, maxCost) {
				assert.Contains(t, x.res.Error, part)
			}
			assert.Empty(t, x.calls, "no Bedrock call")
			assert.Zero(t, x.res.Diagnostics.ModelCalls)
			assert.Equal(t, 1, x.run.count("prepare"))
			assert.Zero(t, x.run.count("map"), "no map invocation")
			assert.Zero(t, x.run.count("reduce"), "no reduce invocation")
			assert.Equal(t, map[string]int{tc.wantError: 1}, x.errors, "failed tasks by error name")
			t.Logf("%s: API %d; %s", tc.name, status, x.res.Error)
		})
	}
}
