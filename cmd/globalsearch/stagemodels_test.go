package main

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
)

func planJSON(t *testing.T, args ...string) planOutput {
	t.Helper()
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, append([]string{"plan", "--json"}, args...))
	require.Equal(t, 0, code, errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	return plan
}

// plan --level auto shows the ladder and the choice (docs/contract.md#auto-level),
// as JSON and as text, and refuses a ceiling nothing fits.
func TestPlanAutoLevel(t *testing.T) {
	path := writeIndex(t, smallIndex())
	q := []string{"--index", path, "--query", "What changed?", "--no-shuffle"}
	wide := planJSON(t, append(q, "--level", "auto", "--max-map-tokens", "100000")...)
	require.NotNil(t, wide.Diagnostics.AutoLevel)
	ladder := wide.Diagnostics.AutoLevel.Ladder
	require.Len(t, ladder, 2, "the leaves fish and solar, then level 0")
	assert.Equal(t, globalsearch.LeafLevel, wide.Diagnostics.AutoLevel.LevelUsed)
	assert.Equal(t, planJSON(t, q...).Batches, wide.Batches, "the leaf rung plans as --level leaf")

	// The ceiling bounds the plan, packing included: one token short of the
	// leaves' plan.
	ceiling := strconv.Itoa(wide.EstimatedMapInputTokens - 1)
	narrow := planJSON(t, append(q, "--level", "auto", "--max-map-tokens", ceiling)...)
	assert.Equal(t, globalsearch.GraphRAGLevel(0), narrow.Diagnostics.AutoLevel.LevelUsed)
	assert.Equal(t, planJSON(t, append(q, "--community-level", "0")...).Batches, narrow.Batches, "the level-0 rung plans as --community-level 0")

	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, append([]string{"plan", "--level", "auto", "--max-map-tokens", ceiling}, q...)), errOut.String())
	assert.Contains(t, out.String(), "level auto under "+ceiling+" map input tokens: level graphrag:0\n")
	assert.Contains(t, out.String(), " * graphrag:0 1 summary, "+strconv.Itoa(ladder[1].MapInputTokens)+" tokens (level 0 and the leaves above it; packed, "+
		strconv.Itoa(narrow.EstimatedMapInputTokens)+" tokens)\n")

	env, out, errOut = testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, append([]string{"run", "--level", "auto", "--max-map-tokens", ceiling}, q...)), errOut.String())
	assert.Contains(t, out.String(), "[status completed, level auto: graphrag:0, 1 summary, 1 batch,", "run's status line says the level used")

	env, _, errOut = testEnv("")
	assert.Equal(t, 2, runMain(context.Background(), env, append([]string{"plan", "--level", "auto", "--max-map-tokens", "1"}, q...)))
	assert.Contains(t, errOut.String(), "raise maxMapInputTokens to at least "+strconv.Itoa(narrow.EstimatedMapInputTokens))

	env, _, errOut = testEnv("")
	assert.Equal(t, 2, runMain(context.Background(), env, append([]string{"plan", "--level", "auto"}, q...)))
	assert.Contains(t, errOut.String(), `communityLevel "auto" needs maxMapInputTokens`)
}

// plan prices each stage at its own prices (docs/contract.md#cost) and
// --max-cost refuses a plan whose worst case passes it.
func TestPlanCostPerStage(t *testing.T) {
	path := writeIndex(t, smallIndex())
	q := []string{"--index", path, "--query", "What changed?", "--seed", "3",
		"--price-in", "3", "--price-out", "15", "--map-price-in", "0.25", "--map-price-out", "1.25"}
	plan := planJSON(t, q...)
	require.NotNil(t, plan.Cost)
	p, err := globalsearch.Request{Query: "What changed?"}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	prices := globalsearch.Prices{Map: globalsearch.Price{In: 0.25, Out: 1.25}, Reduce: globalsearch.Price{In: 3, Out: 15}}
	once := prices.PlanCost(p, plan.EstimatedMapInputTokens, plan.BatchCount, 1, 1)
	worst := prices.WorstCase(p, plan.EstimatedMapInputTokens, plan.BatchCount)
	assert.Equal(t, globalsearch.PlanCost{Map: once.Map, Reduce: once.Reduce, Total: once.Total(), WorstCase: worst.Total()}, *plan.Cost)

	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"within the ceiling", []string{"--max-cost", strconv.FormatFloat(worst.Total(), 'f', -1, 64)}, ""},
		{"over the ceiling", []string{"--max-cost", strconv.FormatFloat(worst.Total()/2, 'f', -1, 64)}, "raise maxCostUsd"},
		{"zero", []string{"--max-cost", "0"}, "--max-cost must be a positive number of US dollars"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, append(append([]string{"plan"}, q...), tc.args...))
			if tc.wantErr == "" {
				assert.Equal(t, 0, code, errOut.String())
				return
			}
			assert.NotEqual(t, 0, code)
			assert.Contains(t, errOut.String(), tc.wantErr)
		})
	}
	t.Run("a cost ceiling without prices", func(t *testing.T) {
		env, _, errOut := testEnv("")
		assert.Equal(t, 2, runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "q", "--max-cost", "1"}))
		assert.Contains(t, errOut.String(), "needs the models' prices, and none are set")
	})
	t.Run("one stage priced", func(t *testing.T) {
		env, _, errOut := testEnv("")
		assert.Equal(t, 2, runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "q", "--map-price-in", "1", "--map-price-out", "1"}))
		assert.Contains(t, errOut.String(), "the map model has prices and the reduce model none")
	})
}

// --map-model and --reduce-model open a model each, --model by default,
// and the map cache keys by the map model (docs/contract.md#stage-models).
func TestStageModelFlags(t *testing.T) {
	path := writeIndex(t, smallIndex())
	tests := []struct {
		name             string
		args             []string
		wantMap, wantRed string // "" for no reduce model of its own
	}{
		{"one model", nil, "offline", ""},
		{"a map model of its own", []string{"--model", "openai:big@http://localhost:1/v1", "--map-model", "offline"}, "offline", "openai:big@http://localhost:1/v1"},
		{"the same model twice is one", []string{"--map-model", "offline", "--reduce-model", "offline"}, "offline", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := testEnv("")
			f, err := parseSearchFlags("run", env, append([]string{"--index", path, "--query", "q", "--no-cache"}, tc.args...))
			require.NoError(t, err)
			e, _, err := f.engine(context.Background(), env, true)
			require.NoError(t, err)
			assert.Equal(t, tc.wantMap, e.Model.(globalsearch.TimeoutModel).Name)
			assert.Equal(t, offline.CacheID, e.ModelID, "the cache keys by the map model, the offline one by its versioned id")
			if tc.wantRed == "" {
				assert.Nil(t, e.ReduceModel)
				return
			}
			assert.Equal(t, tc.wantRed, e.ReduceModel.(globalsearch.TimeoutModel).Name)
		})
	}
	env, _, errOut := testEnv("")
	assert.Equal(t, 2, runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "q", "--reduce-model", "nonsense"}))
	assert.Contains(t, errOut.String(), `unknown --model "nonsense"`)
}
