package statemachine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestReduceRounds ties the reduce in rounds' loop to prepare's output and
// to the reduce function's tasks (docs/contract.md#reduce-rounds): after
// either Map, the request's reduce mode picks Reduce (single) or
// PlanReduceRound (tree); each round with groups runs them in an inline
// Map and plans the next; a round without groups goes to Reduce.
func TestReduceRounds(t *testing.T) {
	ss := states(t)
	assert.Equal(t, "ReduceMode", ss["MapBatches"]["Next"])
	assert.Equal(t, "ReduceMode", ss["MapResultsInRunsTable"]["Next"])
	assert.Contains(t, jsonFields(workflow.PrepareOutput{}), "reduceMode")

	mode := ss["ReduceMode"]
	require.Equal(t, "Choice", mode["Type"])
	assert.Equal(t, []any{map[string]any{
		"And": []any{
			map[string]any{"Variable": "$.reduceMode", "IsPresent": true},
			map[string]any{"Variable": "$.reduceMode", "StringEquals": workflow.ReduceTree},
		},
		"Next": "PlanReduceRound",
	}}, mode["Choices"])
	assert.Equal(t, "Reduce", mode["Default"], workflow.ReduceSingle+", and anything else, reduces as before rounds existed")

	plan := ss["PlanReduceRound"]
	payload := plan["Parameters"].(map[string]any)["Payload"].(map[string]any)
	assert.Equal(t, workflow.TaskRound, payload["task"])
	reduce := ss["Reduce"]["Parameters"].(map[string]any)["Payload"].(map[string]any)
	for _, f := range []string{"queryId.$", "runId.$", "mode.$", "mapResults.$"} {
		assert.Equal(t, reduce[f], payload[f], "a round reads the map's failures as Reduce does: %s", f)
	}
	selector := plan["ResultSelector"].(map[string]any)
	var kept []string
	for k, v := range selector {
		name := strings.TrimSuffix(k, ".$")
		kept = append(kept, name)
		assert.Equal(t, "$.Payload.reduceRound."+name, v)
	}
	assert.ElementsMatch(t, jsonFields(workflow.ReduceRound{}), kept, "the round's every field, and only those")
	assert.Contains(t, jsonFields(workflow.ReduceOutput{}), "reduceRound")
	assert.Equal(t, "RoundHasGroups", plan["Next"])

	has := ss["RoundHasGroups"]
	assert.Equal(t, []any{map[string]any{"Variable": "$.reduceRound.groups", "NumericGreaterThan": float64(0), "Next": "ReduceGroups"}}, has["Choices"])
	assert.Equal(t, "Reduce", has["Default"], "no groups: one prompt holds what is left")

	groups := ss["ReduceGroups"]
	assert.Equal(t, "$.reduceRound.groupIndexes", groups["ItemsPath"])
	assert.Equal(t, "$.mapConcurrency", groups["MaxConcurrencyPath"], "the run's map concurrency, as prepare sized it")
	assert.Equal(t, map[string]any{"Mode": "INLINE"}, groups["ItemProcessor"].(map[string]any)["ProcessorConfig"])
	assert.Equal(t, map[string]any{
		"queryId.$": "$.queryId", "runId.$": "$.runId", "round.$": "$.reduceRound.round", "groupIndex.$": "$$.Map.Item.Value",
	}, groups["ItemSelector"])
	assert.Contains(t, groups, "ResultPath")
	assert.Nil(t, groups["ResultPath"], "the group answers are in the runs table; mapResults stay")
	assert.Equal(t, "PlanReduceRound", groups["Next"], "each round is followed by the next round's plan")

	group := ss["ReduceGroup"]
	gp := group["Parameters"].(map[string]any)["Payload"].(map[string]any)
	assert.Equal(t, workflow.TaskGroup, gp["task"])
	assert.Equal(t, "States.MathAdd($$.State.RetryCount, 1)", gp["attempt.$"])
	assert.ElementsMatch(t, []string{"task", "queryId", "runId", "round", "groupIndex", "attempt"}, payloadFields(gp))
	assert.Equal(t, ss["MapBatch"]["Retry"], group["Retry"], "a group gets a batch's two attempts and its service retries")
	failed := ss["GroupFailed"]
	assert.Equal(t, "Pass", failed["Type"])
	assert.Equal(t, true, failed["End"], "a spent group never fails the execution")
}

// TestSingleReduceTakesTodaysPath: from the end of either Map, a request
// in single mode reaches Reduce through Choice states only, so it invokes
// no function more than it did before reduce rounds existed.
func TestSingleReduceTakesTodaysPath(t *testing.T) {
	ss := states(t)
	for _, from := range []string{"MapBatches", "MapResultsInRunsTable"} {
		var path []string
		for name := ss[from]["Next"].(string); name != "Reduce"; {
			s := ss[name]
			require.Equal(t, "Choice", s["Type"], "%s: only Choices between the map and Reduce", name)
			path = append(path, name)
			name = s["Default"].(string)
		}
		assert.Equal(t, []string{"ReduceMode"}, path, from)
	}
}
