package localengine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
)

func spec(s string) *string { return &s }

// Each stage opens its model, --model by default, and the map cache keys
// by the map model, the offline one by its versioned id
// (docs/contract.md#stage-models).
func TestNewStages(t *testing.T) {
	tests := []struct {
		name             string
		stages           provider.Stages
		wantMap, wantRed string // "" for no reduce model of its own
	}{
		{"one model", provider.Stages{Model: "offline"}, "offline", ""},
		{"a map model of its own", provider.Stages{Model: "openai:big@http://localhost:1/v1", Map: spec("offline")}, "offline", "openai:big@http://localhost:1/v1"},
		{"the same model twice is one", provider.Stages{Model: "offline", Map: spec("offline"), Reduce: spec("offline")}, "offline", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := localengine.New(context.Background(), localengine.Options{Stages: tc.stages, CallModels: true})
			require.NoError(t, err)
			assert.Equal(t, tc.wantMap, e.Model.(globalsearch.TimeoutModel).Name)
			assert.Equal(t, offline.CacheID, e.ModelID)
			if tc.wantRed == "" {
				assert.Nil(t, e.ReduceModel)
				return
			}
			assert.Equal(t, tc.wantRed, e.ReduceModel.(globalsearch.TimeoutModel).Name)
		})
	}
}

// Without CallModels (plan) nothing is opened, not even a bad spec, and
// the cache is dropped; the map spec still names the rates and the prices
// still hold maxCostUsd.
func TestNewWithoutModels(t *testing.T) {
	prices := &globalsearch.Prices{Map: globalsearch.Price{In: 1, Out: 2}}
	e, err := localengine.New(context.Background(), localengine.Options{
		Stages: provider.Stages{Model: "nonsense", Map: spec(" bedrock:anthropic.claude-sonnet-4 ")}, RatingSpec: "nonsense",
		Cache: dircache.New(t.TempDir(), 0, nil), Prices: prices, AutoConcurrency: true, MaxMapTextBytes: 7,
	})
	require.NoError(t, err)
	assert.Nil(t, e.Model)
	assert.Nil(t, e.RatingModel)
	assert.Nil(t, e.Cache)
	assert.NotNil(t, e.Runs)
	assert.NotNil(t, e.AutoConcurrency)
	assert.Equal(t, "bedrock:anthropic.claude-sonnet-4", e.ModelID)
	assert.Same(t, prices, e.Prices)
	assert.Equal(t, int64(7), e.MaxMapTextBytes)
}

func TestNewRatingAndCache(t *testing.T) {
	cache := dircache.New(t.TempDir(), 0, nil)
	e, err := localengine.New(context.Background(), localengine.Options{
		Stages: provider.Stages{Model: "offline"}, CallModels: true, RatingSpec: "offline", Cache: cache,
	})
	require.NoError(t, err)
	assert.Equal(t, "offline", e.RatingModel.(globalsearch.TimeoutModel).Name)
	assert.Equal(t, cache, e.Cache)
	assert.Nil(t, e.AutoConcurrency)

	for _, o := range []localengine.Options{
		{Stages: provider.Stages{Model: "offline", Reduce: spec("nonsense")}, CallModels: true},
		{Stages: provider.Stages{Model: "offline"}, CallModels: true, RatingSpec: "nonsense"},
	} {
		_, err := localengine.New(context.Background(), o)
		require.Error(t, err)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), err.Error())
		assert.Contains(t, err.Error(), `"nonsense"`)
	}
}

// A flag wins over its variable; the rest is the environment's.
func TestLookup(t *testing.T) {
	env := map[string]string{"A": "env", "B": "env"}
	lookup := localengine.Lookup(map[string]string{"A": "flag"}, func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	})
	for name, want := range map[string]string{"A": "flag", "B": "env"} {
		v, ok := lookup(name)
		assert.True(t, ok)
		assert.Equal(t, want, v)
	}
	_, ok := lookup("C")
	assert.False(t, ok)
	_, ok = localengine.Lookup(nil, nil)("A")
	assert.False(t, ok)

	q, err := globalsearch.QuotaFromEnv(localengine.Lookup(map[string]string{globalsearch.EnvModelTokensPerMinute: "0"},
		func(name string) (string, bool) { return "9000", name != globalsearch.EnvMapCallSeconds }))
	require.NoError(t, err)
	assert.Zero(t, q.TokensPerMinute, "a flag of 0 (not known) wins over the variable")
	assert.Equal(t, 9000, q.RequestsPerMinute)
}
