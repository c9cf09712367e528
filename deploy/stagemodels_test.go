package deploy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func functionEnv(t *testing.T, s *stack, fn string) map[string]string {
	t.Helper()
	vars, ok := path(s.resource(t, fn, "AWS::Lambda::Function"), "Environment", "Variables").(map[string]any)
	require.True(t, ok, "%s has environment variables", fn)
	env := map[string]string{}
	for k, v := range vars {
		env[k] = render(v)
	}
	return env
}

// The map and reduce functions call their stage's model
// (docs/contract.md#stage-models), and the prices, the cost ceiling and the
// auto ceiling reach the configuration reader as the template sets them
// (docs/contract.md#cost); empty parameters set nothing.
func TestStageModelsAndPriceParameters(t *testing.T) {
	for _, tc := range []struct {
		name             string
		overrides        map[string]string
		wantMap, wantRed string
		wantPrices       *globalsearch.Prices
		wantCost         float64
		wantAuto         int
	}{
		{"defaults: one model, no price", nil,
			"us.anthropic.claude-3-5-haiku-20241022-v1:0", "us.anthropic.claude-3-5-haiku-20241022-v1:0", nil, 0, 0},
		{"a model and prices per stage", map[string]string{
			"MapFoundationModelId": "amazon.nova-micro-v1:0", "ReduceFoundationModelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
			"MapPriceIn": "0.035", "MapPriceOut": "0.14", "ReducePriceIn": "3", "ReducePriceOut": "15",
			"MaxCostUsd": "0.5", "MaxMapInputTokens": "40000",
		}, "us.amazon.nova-micro-v1:0", "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
			&globalsearch.Prices{Map: globalsearch.Price{In: 0.035, Out: 0.14}, Reduce: globalsearch.Price{In: 3, Out: 15}}, 0.5, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := translate(t, tc.overrides)
			assert.Equal(t, tc.wantMap, functionEnv(t, s, "MapFunction")["MODEL_ID"])
			assert.Equal(t, tc.wantRed, functionEnv(t, s, "ReduceFunction")["MODEL_ID"])
			for _, fn := range []string{"ApiFunction", "PrepareFunction", "ReduceFunction"} {
				env := functionEnv(t, s, fn)
				c, err := workflow.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
				require.NoError(t, err, fn)
				assert.Equal(t, tc.wantPrices, c.Prices, fn)
				assert.Equal(t, tc.wantCost, c.Defaults.MaxCostUSD, fn)
				assert.Equal(t, tc.wantAuto, c.Defaults.MaxMapInputTokens, fn)
			}
		})
	}
}
