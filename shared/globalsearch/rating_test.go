package globalsearch_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A rating reply is read as strictly as a map answer
// (docs/contract.md#dynamic-selection): an id of the batch it leaves out is
// not rated, an id outside the batch is counted and ignored.
func TestParseRatingOutput(t *testing.T) {
	ids := []string{"a", "b"}
	tests := []struct {
		name        string
		text        string
		wantScores  map[string]float64
		wantUnknown int
		wantErr     string
	}{
		{"every id", `{"ratings":[{"id":"a","score":4},{"id":"b","score":0}]}`, map[string]float64{"a": 4, "b": 0}, 0, ""},
		{"fenced", "```json\n{\"ratings\":[{\"id\":\"a\",\"score\":5}]}\n```", map[string]float64{"a": 5}, 0, ""},
		{"missing id is not rated", `{"ratings":[{"id":"b","score":2}]}`, map[string]float64{"b": 2}, 0, ""},
		{"unknown id counted and ignored", `{"ratings":[{"id":"a","score":1},{"id":"zz","score":5}]}`, map[string]float64{"a": 1}, 1, ""},
		{"twice keeps the higher", `{"ratings":[{"id":"a","score":1},{"id":"a","score":3}]}`, map[string]float64{"a": 3}, 0, ""},
		{"empty list", `{"ratings":[]}`, map[string]float64{}, 0, ""},
		{"not JSON", `I rate them all highly`, nil, 0, "model output is not valid JSON"},
		{"array", `[{"id":"a","score":1}]`, nil, 0, "rating output must be a JSON object"},
		{"no ratings", `{"scores":[]}`, nil, 0, "rating output must contain a ratings array"},
		{"ratings not an array", `{"ratings":{"a":1}}`, nil, 0, "rating output must contain a ratings array"},
		{"entry not an object", `{"ratings":["a"]}`, nil, 0, "each rating must be a JSON object with id and score"},
		{"id not a string", `{"ratings":[{"id":1,"score":1}]}`, nil, 0, "each rating must have a string id"},
		{"score a string", `{"ratings":[{"id":"a","score":"3"}]}`, nil, 0, "each rating must have a number score from 0 to 5"},
		{"score above 5", `{"ratings":[{"id":"a","score":6}]}`, nil, 0, "each rating must have a number score from 0 to 5"},
		{"score below 0", `{"ratings":[{"id":"a","score":-1}]}`, nil, 0, "each rating must have a number score from 0 to 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := gs.ParseRatingOutput(tc.text, ids)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindModelOutput, gs.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantScores, r.Scores)
			assert.Equal(t, tc.wantUnknown, r.Unknown)
		})
	}
}

// The rating prompt is data-safe as the map prompt is
// (docs/contract.md#data-safe-prompts): content that reads as the closing
// delimiter cannot end the data early, and the query goes in literally.
func TestRatePromptIsDataSafe(t *testing.T) {
	skeleton := gs.RatePromptSkeleton("Who is {{content}}?")
	assert.Contains(t, skeleton, "Question: Who is {{content}}?")
	assert.Contains(t, skeleton, `{"ratings": [{"id": "<community id>", "score": <whole number from 0 to 5>}]}`)
	assert.Equal(t, 1, strings.Count(skeleton, "\n</community_data>\n"), "one closing line, after the data")
}
