package globalsearch

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each round checks the ceiling again before its calls
// (docs/contract.md#dynamic-selection): a round whose calls, beside those
// made, could pass it is refused before it calls anything.
func TestRatingRoundChecksTheCeiling(t *testing.T) {
	tests := []struct {
		name    string
		made    int
		wantErr string
	}{
		{"room for the round, a map batch and the reduce", 4, ""},
		{"no room", 5, "rating round 3 needs up to 2 model calls beside the 5 made, which passes this run's 10: raise maxModelCalls or ratingThreshold"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Params{Query: "q", MaxModelCalls: 10, Selection: SelectionDynamic}
			err := checkRoundCeiling(p, 3, 1, tc.made)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, KindPlanTooLarge, KindOf(err))
			assert.Equal(t, tc.wantErr, err.Error())
		})
	}
}

// A first round none of whose batches was rated fails the run with a
// RatingError naming the last attempt's error; a later round's failures
// leave its communities not rated (docs/contract.md#dynamic-selection).
func TestReplayFailedRounds(t *testing.T) {
	h, err := newHierarchy([]Summary{{ID: "a", Summary: "Trade."}, {ID: "a1", Level: 1, ParentCommunityID: "a", Summary: "Ports."}})
	require.NoError(t, err)
	p := Params{Query: "q", MapTokenBudget: 8000, MapOutputReserve: 512, RatingThreshold: 2, Selection: SelectionDynamic}
	tests := []struct {
		name       string
		ratings    []Rating
		done       int
		wantErr    string
		wantKind   Kind
		wantNext   []string
		wantReport SelectionReport
	}{
		{"first round failed", []Rating{{Round: 1, Calls: 2, Error: "model output: not JSON", ErrorKind: KindModelOutput}}, 1,
			"every rating batch of the root communities failed, so no community could be selected: model output: not JSON", KindModelOutput, nil, SelectionReport{}},
		{"first round never recorded", nil, 1,
			"every rating batch of the root communities failed, so no community could be selected: no attempt of its batches was recorded", KindModel, nil, SelectionReport{}},
		{"second round failed", []Rating{{Round: 1, Calls: 1, Rated: true, Scores: map[string]float64{"a": 4}}, {Round: 2, Calls: 2, Error: "throttled"}}, 2,
			"", 0, nil, SelectionReport{Rounds: 2, Rated: 1, NotRated: 1, RatingCalls: 3, FailedRatingBatches: 1}},
		{"first round rated", []Rating{{Round: 1, Calls: 1, InputTokens: 9, Rated: true, Scores: map[string]float64{"a": 4}}}, 1,
			"", 0, []string{"a1"}, SelectionReport{Rounds: 1, Rated: 1, RatingCalls: 1, RatingInputTokens: 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var report SelectionReport
			_, next, err := (&Engine{}).replaySelection(context.Background(), p, h, tc.ratings, tc.done, &report)
			if tc.wantErr != "" {
				var rating *RatingError
				require.ErrorAs(t, err, &rating)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, tc.wantKind, KindOf(err), "the run fails as the calls did")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantNext, next)
			assert.Equal(t, tc.wantReport, report)
		})
	}
}
