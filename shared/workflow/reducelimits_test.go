package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// boundedTreeRequest is a request over the fixture's three batches whose
// map answers are bounded by a reserve, so that the plan knows their
// worst size, and whose reduce prompt holds two of them and not three:
// at its worst the reduce makes a round of groups.
func boundedTreeRequest(mode string) string {
	prompts := globalsearch.DefaultPrompts()
	skeleton := max(tokens.Estimate(prompts.Reduce.Skeleton("what changed?")), tokens.Estimate(prompts.Round.Skeleton("what changed?")))
	return fmt.Sprintf(`{"query":"what changed?","queryId":"bounded","shuffle":false,"tokenizer":"estimate","reduceMode":%q,"mapTokenBudget":1300,"mapOutputReserve":100,"reduceOutputReserve":100,"reduceTokenBudget":%d}`,
		mode, skeleton+2*130+100)
}

// TestPrepareCountsReduceGroups: a tree run's worst-case reduce groups are
// inline Map iterations of the execution's history, so they count with
// the map batches in the inline-vs-distributed decision, and a plan whose
// groups pass the engine's MaxReduceGroups is refused before any call,
// its failed result saved (docs/contract.md#plan-limits). StepEngine sets
// the deployed bounds.
func TestPrepareCountsReduceGroups(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mode      string
		maxGroups int
		wantMode  string
		wantErr   string
	}{
		{"single: the map batches alone fit", workflow.ReduceSingle, workflow.InlineMaxBatches, workflow.ModeInline, ""},
		{"tree: map batches and groups pass the inline budget", workflow.ReduceTree, workflow.InlineMaxBatches, workflow.ModeDistributed, ""},
		{"tree: more groups than the state machine runs", workflow.ReduceTree, 1, "", "PlanTooLargeError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			h, s := fixture(t, &fakeModel{complete: func(context.Context, globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
				calls++
				return globalsearch.ModelResponse{Text: `{"answer":"a","usefulness":50}`}, nil
			}})
			workflow.StepEngine(h.Engine)
			assert.Equal(t, workflow.InlineMaxBatches, h.Engine.MaxReduceGroups)
			assert.Equal(t, workflow.MaxReduceRounds, h.Engine.MaxReduceRounds)
			h.Engine.MaxReduceGroups = tc.maxGroups
			items := &mapItems{}
			h.InlineMaxBatches, h.Items = 3, items // the fixture's three batches
			raw, err := invoke(t, h.Prepare, `{"request":`+boundedTreeRequest(tc.mode)+`}`)
			assert.Zero(t, calls, "prepare calls no model")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, workflow.ErrorType(err))
				assert.Contains(t, err.Error(), "reduce groups")
				res, err := s.Result(context.Background(), "bounded")
				require.NoError(t, err)
				assert.Equal(t, globalsearch.StatusFailed, res.Status)
				return
			}
			require.NoError(t, err)
			var out workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(raw), &out))
			assert.Equal(t, 3, out.BatchCount)
			assert.Equal(t, tc.wantMode, out.Mode)
		})
	}
}
