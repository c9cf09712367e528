package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestDefaultVariable: the variable of a defaulted field is the one
// DefaultsFromEnv reads for it; a field without a deployment default has
// none.
func TestDefaultVariable(t *testing.T) {
	tests := []struct {
		field, want string
	}{
		{"namespace", "GRAPHRAG_NAMESPACE"},
		{"communityLevel", "GRAPHRAG_COMMUNITY_LEVEL"},
		{"mapTokenBudget", "GRAPHRAG_MAP_TOKEN_BUDGET"},
		{"reduceTokenBudget", "GRAPHRAG_REDUCE_TOKEN_BUDGET"},
		{"mapOutputReserve", "GRAPHRAG_MAP_OUTPUT_RESERVE"},
		{"reduceOutputReserve", "GRAPHRAG_REDUCE_OUTPUT_RESERVE"},
		{"mapConcurrency", "GRAPHRAG_MAP_CONCURRENCY"},
		{"maxModelCalls", "GRAPHRAG_MAX_MODEL_CALLS"},
		{"query", ""},
		{"shuffleSeed", ""},
		{"noSuchField", ""},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			assert.Equal(t, tc.want, gs.DefaultVariable(tc.field))
		})
	}
	t.Run("the variable sets the default", func(t *testing.T) {
		d, err := gs.DefaultsFromEnv(func(k string) (string, bool) {
			return "6000", k == gs.DefaultVariable("mapTokenBudget")
		})
		assert.NoError(t, err)
		assert.Equal(t, 6000, d.MapTokenBudget)
	})
}
