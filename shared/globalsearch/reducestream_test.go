package globalsearch_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// In tree mode the final call streams its answer as single mode's does
// (docs/contract.md#answer-stream), and the rounds' intermediate calls do
// not: their answers are no reader's.
func TestTreeStreamsTheFinalAnswerOnly(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mode       string
		wantRounds int // at least
	}{
		{"tree with rounds", gs.ReduceModeTree, 2},
		{"single", gs.ReduceModeSingle, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &streamingModel{fakeModel: fakeModel{complete: roundsModel}}
			e, _ := newEngine(t, leafNamespace(30), m)
			got := &sink{}
			res, err := e.Search(gs.WithAnswerSink(context.Background(), got), roundsParams(t, tc.mode, nil))
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status, res.Error)
			assert.GreaterOrEqual(t, res.Diagnostics.Reduce.Rounds, tc.wantRounds)
			assert.Equal(t, []gs.Stage{gs.StageReduce}, m.streamed, "one streamed call: the final one")
			assert.Equal(t, res.Answer, got.text(1), "the final answer streamed whole, as its first attempt")
			assert.Equal(t, res.QueryID, got.query)
		})
	}
}
