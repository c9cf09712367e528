package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestReadArgs: arguments that are no object, or an argument of the
// wrong type, are refused as invalid input naming it; null is left out.
func TestReadArgs(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"no arguments", ``, ""},
		{"null arguments", `null`, ""},
		{"null argument", `{"query":"q","responseType":null}`, ""},
		{"an array", `[1]`, "arguments must be a JSON object, not an array"},
		{"a string for a string", `{"query":"q","namespace":7}`, "namespace must be a string"},
		{"detail of the wrong type", `{"query":"q","detail":true}`, "detail must be a string"},
		{"an unknown argument", `{"query":"q","levle":1}`, `unknown argument "levle": the arguments are detail, graphragLevel, level, mapServiceTier, maxMapInputTokens, namespace, promptCache, query, reduceMode, reduceServiceTier, responseType, seedPolicy, selection`},
		{"a setting of the wrong type", `{"query":"q","promptCache":5}`, "promptCache must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in globalSearchInput
			err := readArgs(json.RawMessage(tc.raw), &in)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
