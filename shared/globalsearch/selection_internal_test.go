package globalsearch

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type refusingModel struct{ calls int }

func (m *refusingModel) Complete(context.Context, ModelRequest) (ModelResponse, error) {
	m.calls++
	return ModelResponse{}, Errorf(KindModel, "not to be called")
}

// Each round checks the ceiling again before its calls
// (docs/contract.md#dynamic-selection): a round whose calls, beside those
// made, could pass it is refused before it calls anything.
func TestRatingRoundChecksTheCeiling(t *testing.T) {
	h, err := newHierarchy([]Summary{{ID: "a", Summary: "Trade."}, {ID: "b", Summary: "Ports."}})
	require.NoError(t, err)
	tests := []struct {
		name      string
		made      int
		wantErr   string
		wantCalls int
	}{
		{"room for the round, a map batch and the reduce", 4, "", 2},
		{"no room", 5, "rating round 1 needs up to 2 model calls beside the 5 made, which passes this run's 10: raise maxModelCalls or ratingThreshold", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &refusingModel{}
			e := &Engine{Model: m}
			p := Params{Query: "q", MapTokenBudget: 8000, MapOutputReserve: 512, MapConcurrency: 1, MaxModelCalls: 10, RatingThreshold: 2, Selection: SelectionDynamic}
			report := &SelectionReport{RatingCalls: tc.made}
			err := e.rateRound(context.Background(), p, h, []string{"a", "b"}, map[string]float64{}, report)
			assert.Equal(t, tc.wantCalls, m.calls)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, KindPlanTooLarge, KindOf(err))
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.Error(t, err, "every batch of the first round failed")
			var rating *RatingError
			assert.ErrorAs(t, err, &rating)
		})
	}
}
