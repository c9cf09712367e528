package globalsearch_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestStageOutputSchemaMatchesTheParser: the schema asks for exactly the keys
// the stage's parser requires, so an answer the schema admits is one the
// parser reads, and one missing a required key is one it refuses.
func TestStageOutputSchemaMatchesTheParser(t *testing.T) {
	parse := map[gs.Stage]func(string) error{
		gs.StageMap: func(s string) error { _, _, err := gs.ParseMapOutput(s); return err },
		gs.StageReduce: func(s string) error {
			_, err := gs.ParseReduceOutput(s)
			return err
		},
		gs.StageRate: func(s string) error { _, err := gs.ParseRatingOutput(s, []string{"c1"}); return err },
	}
	cases := []struct {
		stage    gs.Stage
		name     string
		required []any
		valid    map[string]any
	}{
		{gs.StageMap, "map_answer", []any{"answer", "usefulness"}, map[string]any{"answer": "Sorrel Bank is a wind farm.", "usefulness": 80}},
		{gs.StageReduce, "reduce_answer", []any{"answer"}, map[string]any{"answer": "Sorrel Bank is a wind farm."}},
		{gs.StageRate, "community_ratings", []any{"ratings"}, map[string]any{"ratings": []any{map[string]any{"id": "c1", "score": 3}}}},
	}
	for _, tc := range cases {
		t.Run(string(tc.stage), func(t *testing.T) {
			s := gs.StageOutputSchema(tc.stage)
			assert.Equal(t, tc.name, s.Name)
			assert.NotEmpty(t, s.Description)
			assert.Equal(t, "object", s.Schema["type"])
			assert.Equal(t, false, s.Schema["additionalProperties"], "closed, as strict servers demand")
			require.Equal(t, tc.required, s.Schema["required"])
			props, ok := s.Schema["properties"].(map[string]any)
			require.True(t, ok)
			assert.Len(t, props, len(tc.required), "every property is required")

			doc, err := json.Marshal(tc.valid)
			require.NoError(t, err)
			assert.NoError(t, parse[tc.stage](string(doc)), "an answer of the schema's shape parses")
			for _, key := range tc.required {
				partial := map[string]any{}
				for k, v := range tc.valid {
					if k != key {
						partial[k] = v
					}
				}
				doc, err := json.Marshal(partial)
				require.NoError(t, err)
				assert.Error(t, parse[tc.stage](string(doc)), "without %s the parser refuses it too", key)
			}
		})
	}
}

func TestOutputSchemaJSONIsTheSchema(t *testing.T) {
	for _, stage := range []gs.Stage{gs.StageMap, gs.StageReduce, gs.StageRate} {
		t.Run(string(stage), func(t *testing.T) {
			s := gs.StageOutputSchema(stage)
			var back map[string]any
			require.NoError(t, json.Unmarshal([]byte(s.JSON()), &back))
			want, err := json.Marshal(s.Schema)
			require.NoError(t, err)
			got, err := json.Marshal(back)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
}

// TestStageOutputSchemaIsAFreshCopy: an adapter that edits its copy (a
// server's dialect) cannot change the next caller's schema.
func TestStageOutputSchemaIsAFreshCopy(t *testing.T) {
	first := gs.StageOutputSchema(gs.StageMap)
	first.Schema["additionalProperties"] = true
	first.Schema["properties"].(map[string]any)["extra"] = map[string]any{"type": "string"}
	second := gs.StageOutputSchema(gs.StageMap)
	assert.Equal(t, false, second.Schema["additionalProperties"])
	assert.NotContains(t, second.Schema["properties"], "extra")
}
