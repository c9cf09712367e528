package globalsearch_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// forest is a namespace for dynamic selection: roots a, b, c, a blank root
// d, and their children (docs/contract.md#dynamic-selection).
func forest() gs.Records {
	s := func(id string, level int, parent, text string) gs.Summary {
		return gs.Summary{ID: id, Level: level, ParentCommunityID: parent, Title: "Community " + id, Summary: text}
	}
	return gs.Records{Summaries: []gs.Summary{
		s("a", 0, "", "Harbour trade."), s("a1", 1, "a", "Fishing fleets."), s("a2", 1, "a", "Lighthouses."),
		s("b", 0, "", "Mountain farms."), s("b1", 1, "b", "Goat cheese."),
		s("c", 0, "", "River mills."), s("c1", 1, "c", "Grain prices."), s("c2", 1, "c", "Water wheels."),
		s("d", 0, "", " "), s("d1", 1, "d", "Salt works."),
	}}
}

// rater scores each community of a rating call from scores (absent: 0) and
// answers every map and reduce call; fail decides, per rating call, to fail
// it instead.
func rater(scores map[string]int, fail func(req gs.ModelRequest, call int) error) func(gs.ModelRequest, int) (gs.ModelResponse, error) {
	return func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage != gs.StageRate {
			return answerEverything(req, call)
		}
		if fail != nil {
			if err := fail(req, call); err != nil {
				return gs.ModelResponse{}, err
			}
		}
		type rating struct {
			ID    string `json:"id"`
			Score int    `json:"score"`
		}
		var out struct {
			Ratings []rating `json:"ratings"`
		}
		for _, p := range req.Parts {
			out.Ratings = append(out.Ratings, rating{p.CommunityID, scores[p.CommunityID]})
		}
		data, err := json.Marshal(out)
		if err != nil {
			return gs.ModelResponse{}, err
		}
		return text(string(data))
	}
}

func dynamicParams(t *testing.T, extra string) gs.Params {
	t.Helper()
	p, err := gs.ParseRequest([]byte(`{"query":"Where is trade?","selection":"dynamic","shuffle":false`+extra+`}`), gs.SpecDefaults)
	require.NoError(t, err)
	return p
}

func mappedIDs(res gs.Result) []string {
	var ids []string
	for _, b := range res.Diagnostics.Batches {
		ids = append(ids, b.CommunityIDs...)
	}
	slices.Sort(ids)
	return ids
}

// Rating descends from the roots into the children of relevant
// communities only; a relevant community with no relevant child is mapped
// itself; a blank summary hands the rating to its children.
func TestDynamicSelectionDescends(t *testing.T) {
	scores := map[string]int{"a": 4, "a1": 3, "a2": 1, "b": 1, "b1": 5, "c": 2, "c1": 1, "c2": 0, "d1": 2}
	tests := []struct {
		name         string
		extra        string
		wantSelected []string
		wantRated    int
		wantRounds   int
	}{
		// Round 1 rates a, b, c, d1 (d is blank); round 2 the children of a and c.
		{"default threshold 2", "", []string{"a1", "c", "d1"}, 8, 2},
		{"threshold 1 descends further", `,"ratingThreshold":1`, []string{"a1", "a2", "b1", "c1", "d1"}, 9, 2},
		{"threshold 4 keeps one root", `,"ratingThreshold":4`, []string{"a"}, 6, 2},
		{"threshold 5 selects nothing", `,"ratingThreshold":5`, nil, 4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: rater(scores, nil)}
			e, _ := newEngine(t, forest(), model)
			res, err := e.Search(context.Background(), dynamicParams(t, tc.extra))
			require.NoError(t, err)
			sel := res.Diagnostics.Selection
			assert.Equal(t, tc.wantSelected, mappedIDs(res))
			assert.Equal(t, len(tc.wantSelected), sel.Selected)
			assert.Equal(t, tc.wantRated, sel.Rated)
			assert.Equal(t, tc.wantRounds, sel.Rounds)
			assert.Equal(t, tc.wantRounds, sel.RatingCalls, "one rating call per round: every round fits one batch")
			assert.Equal(t, model.count(gs.StageRate), sel.RatingCalls)
			assert.Equal(t, model.count(gs.StageRate)+model.count(gs.StageMap)+model.count(gs.StageReduce), res.Diagnostics.ModelCalls,
				"rating calls are model calls of the run")
			assert.Equal(t, 1, sel.LeafMapBatches, "the leaf plan maps the six leaves in one batch")
			assert.Positive(t, sel.LeafMapInputTokens)
			assert.Equal(t, gs.LeafLevel, res.CommunityLevel)
		})
	}
}
