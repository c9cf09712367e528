package globalsearch_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestGraphRAGLevelForm: communityLevel "graphrag:N" (docs/contract.md#graphrag-level)
// reads as the CLI and JSON write it, and writes back the same way; every
// other spelling is refused with the rule.
func TestGraphRAGLevelForm(t *testing.T) {
	tests := []struct {
		in   string
		want gs.Level
		ok   bool
	}{
		{"graphrag:0", gs.GraphRAGLevel(0), true},
		{"graphrag:2", gs.GraphRAGLevel(2), true},
		{"graphrag:2147483647", gs.GraphRAGLevel(math.MaxInt32), true},
		{"graphrag:2147483648", 0, false},
		{"graphrag:", 0, false},
		{"graphrag:-1", 0, false},
		{"graphrag:02", 0, false},
		{"graphrag: 2", 0, false},
		{"graphrag:2.0", 0, false},
		{"graphrag:1e2", 0, false},
		{"GRAPHRAG:2", 0, false},
		{"graphrag:leaf", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			l, err := gs.ParseLevel(tc.in)
			var fromJSON gs.Level
			jsonErr := json.Unmarshal([]byte(`"`+tc.in+`"`), &fromJSON)
			if !tc.ok {
				require.Error(t, err)
				assert.Equal(t, "communityLevel must be "+gs.LevelRule, err.Error())
				assert.Error(t, jsonErr)
				return
			}
			require.NoError(t, err)
			require.NoError(t, jsonErr)
			assert.Equal(t, tc.want, l)
			assert.Equal(t, tc.want, fromJSON)
			assert.Equal(t, tc.in, l.String())
			data, err := json.Marshal(l)
			require.NoError(t, err)
			assert.JSONEq(t, `"`+tc.in+`"`, string(data))
			n, ok := l.GraphRAG()
			assert.True(t, ok)
			number, numbered := l.Number()
			assert.True(t, numbered)
			assert.Equal(t, n, number)
		})
	}
	for _, l := range []gs.Level{gs.LeafLevel, gs.AutoLevel, 0, 3} {
		_, isGraphRAG := l.GraphRAG()
		assert.False(t, isGraphRAG, "%s is not GraphRAG's", l)
	}
	_, numbered := gs.LeafLevel.Number()
	assert.False(t, numbered, "leaf names no level")
}

// TestGraphRAGLevelDefault: GRAPHRAG_COMMUNITY_LEVEL takes the same form.
func TestGraphRAGLevelDefault(t *testing.T) {
	d, err := gs.DefaultsFromEnv(func(k string) (string, bool) { return "graphrag:2", k == "GRAPHRAG_COMMUNITY_LEVEL" })
	require.NoError(t, err)
	assert.Equal(t, gs.GraphRAGLevel(2), d.CommunityLevel)
	_, err = gs.DefaultsFromEnv(func(k string) (string, bool) { return "graphrag:x", k == "GRAPHRAG_COMMUNITY_LEVEL" })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GRAPHRAG_COMMUNITY_LEVEL: communityLevel must be")
}
