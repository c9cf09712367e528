package deploy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestRequestDefaultParameters: each deployment default of a request
// field (batching, docs/contract.md#stable-batching; reduceMode,
// docs/contract.md#reduce-rounds; promptCache, docs/contract.md#prompt-cache;
// the service tiers, docs/contract.md#service-tiers; seedPolicy,
// docs/contract.md#seed-policy) reaches the functions that parse requests
// as its GRAPHRAG_ variable, its default is the code's, and the
// configuration reader reads what the template sets.
func TestRequestDefaultParameters(t *testing.T) {
	defaults := translate(t, nil)
	for _, p := range []struct {
		param, env, specDefault, codeDefault, other string
		read                                        func(workflow.Config) string
	}{
		{"Batching", "GRAPHRAG_BATCHING", globalsearch.SpecDefaults.Batching, globalsearch.BatchingGreedy, globalsearch.BatchingStable,
			func(c workflow.Config) string { return c.Defaults.Batching }},
		{"ReduceMode", "GRAPHRAG_REDUCE_MODE", globalsearch.SpecDefaults.ReduceMode, globalsearch.ReduceModeSingle, globalsearch.ReduceModeTree,
			func(c workflow.Config) string { return c.Defaults.ReduceMode }},
		// The template names the adapter's own default, 5m, where the code's is "" (the model's).
		{"PromptCache", "GRAPHRAG_PROMPT_CACHE", globalsearch.PromptCache5m, globalsearch.PromptCache5m, globalsearch.PromptCacheOff,
			func(c workflow.Config) string { return c.Defaults.PromptCache }},
		{"MapServiceTier", "GRAPHRAG_MAP_SERVICE_TIER", globalsearch.SpecDefaults.MapServiceTier, "", "flex",
			func(c workflow.Config) string { return c.Defaults.MapServiceTier }},
		{"ReduceServiceTier", "GRAPHRAG_REDUCE_SERVICE_TIER", globalsearch.SpecDefaults.ReduceServiceTier, "", "priority",
			func(c workflow.Config) string { return c.Defaults.ReduceServiceTier }},
		{"SeedPolicy", "GRAPHRAG_SEED_POLICY", globalsearch.SeedPolicyQuestion, globalsearch.SeedPolicyQuestion, globalsearch.SeedPolicyNamespace,
			func(c workflow.Config) string { return c.Defaults.SeedPolicy }},
	} {
		t.Run(p.param, func(t *testing.T) {
			assert.Equal(t, p.specDefault, defaults.params[p.param], "the template's default is the code's")
			for _, value := range []string{"", p.other} { // "" = the template's default
				var overrides map[string]string
				want := p.codeDefault
				if value != "" {
					overrides, want = map[string]string{p.param: value}, value
				}
				s := translate(t, overrides)
				for _, fn := range []string{"ApiFunction", "PrepareFunction"} {
					vars, ok := path(s.resource(t, fn, "AWS::Lambda::Function"), "Environment", "Variables").(map[string]any)
					require.True(t, ok, "%s has environment variables", fn)
					env := map[string]string{}
					for k, v := range vars {
						env[k] = render(v)
					}
					assert.Equal(t, want, env[p.env], fn)
					c, err := workflow.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
					require.NoError(t, err, fn)
					assert.Equal(t, want, p.read(c), fn)
				}
			}
		})
	}
}
