package deploy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestBatchingParameter: the deployment default of batching
// (docs/contract.md#stable-batching) reaches the functions that parse
// requests as GRAPHRAG_BATCHING, its default is the code's, and the
// configuration reader reads what the template sets.
func TestBatchingParameter(t *testing.T) {
	defaults := translate(t, nil)
	assert.Equal(t, globalsearch.SpecDefaults.Batching, defaults.params["Batching"])
	for _, tc := range []struct {
		name, value, want string // value "" = the template's default
	}{
		{"default", "", globalsearch.BatchingGreedy},
		{"stable", "stable", globalsearch.BatchingStable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]string
			if tc.value != "" {
				overrides = map[string]string{"Batching": tc.value}
			}
			s := translate(t, overrides)
			for _, fn := range []string{"ApiFunction", "PrepareFunction"} {
				vars, ok := path(s.resource(t, fn, "AWS::Lambda::Function"), "Environment", "Variables").(map[string]any)
				require.True(t, ok, "%s has environment variables", fn)
				env := map[string]string{}
				for k, v := range vars {
					env[k] = render(v)
				}
				assert.Equal(t, tc.want, env["GRAPHRAG_BATCHING"], fn)
				c, err := workflow.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
				require.NoError(t, err, fn)
				assert.Equal(t, tc.want, c.Defaults.Batching, fn)
			}
		})
	}
}
