package deploy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestReduceModeParameter: the deployment default of reduceMode
// (docs/contract.md#reduce-rounds) reaches the functions that parse
// requests as GRAPHRAG_REDUCE_MODE, its default is the code's, and the
// configuration reader reads what the template sets.
func TestReduceModeParameter(t *testing.T) {
	defaults := translate(t, nil)
	assert.Equal(t, globalsearch.SpecDefaults.ReduceMode, defaults.params["ReduceMode"])
	for _, tc := range []struct {
		name, value, want string // value "" = the template's default
	}{
		{"default", "", globalsearch.ReduceModeSingle},
		{"tree", "tree", globalsearch.ReduceModeTree},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]string
			if tc.value != "" {
				overrides = map[string]string{"ReduceMode": tc.value}
			}
			s := translate(t, overrides)
			for _, fn := range []string{"ApiFunction", "PrepareFunction"} {
				vars, ok := path(s.resource(t, fn, "AWS::Lambda::Function"), "Environment", "Variables").(map[string]any)
				require.True(t, ok, "%s has environment variables", fn)
				env := map[string]string{}
				for k, v := range vars {
					env[k] = render(v)
				}
				assert.Equal(t, tc.want, env["GRAPHRAG_REDUCE_MODE"], fn)
				c, err := workflow.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
				require.NoError(t, err, fn)
				assert.Equal(t, tc.want, c.Defaults.ReduceMode, fn)
			}
		})
	}
}
