package statemachine_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestMapModes ties the Distributed Map path to prepare's output and to
// what reduce and shared/store read (docs/contract.md#state-machine).
func TestMapModes(t *testing.T) {
	ss := states(t)
	prepared := jsonFields(workflow.PrepareOutput{})

	// Prepare's mode picks the Map.
	assert.Equal(t, "MapMode", ss["Prepare"]["Next"])
	choice := ss["MapMode"]
	require.Equal(t, "Choice", choice["Type"])
	assert.Equal(t, []any{
		map[string]any{"Variable": "$.mode", "StringEquals": workflow.ModeSelecting, "Next": "RateCommunities"},
		map[string]any{"Variable": "$.mode", "StringEquals": workflow.ModeDistributed, "Next": "MapBatchesDistributed"},
	}, choice["Choices"])
	// A rating round ends in SelectNext, whose output is prepare's again.
	assert.Equal(t, "SelectNext", ss["RateCommunities"]["Next"])
	assert.Equal(t, "MapMode", ss["SelectNext"]["Next"])
	assert.Equal(t, "MapBatches", choice["Default"], "anything else, "+workflow.ModeInline+" included, runs inline")
	assert.Contains(t, prepared, "mode")

	dist := ss["MapBatchesDistributed"]
	require.Equal(t, "Map", dist["Type"])
	proc := dist["ItemProcessor"].(map[string]any)
	// Standard children: a batch's retries (the throttle retrier alone may
	// wait about 3 minutes, each attempt up to 210 s) outlast an Express
	// execution's 5 minutes, and a Standard child runs its task exactly once.
	assert.Equal(t, map[string]any{"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}, proc["ProcessorConfig"])
	assert.Equal(t, "MapBatchInChild", proc["StartAt"])
	assert.EqualValues(t, 100, dist["ToleratedFailurePercentage"], "reduce decides partial or failed, never the Map")
	assert.Contains(t, dist, "ResultPath")
	assert.Nil(t, dist["ResultPath"], "no map results travel: the next state sees prepare's output")
	assert.Equal(t, "MapResultsInRunsTable", dist["Next"])

	// Every field the items need comes from prepare's output.
	selector := dist["ItemSelector"].(map[string]any)
	for k, v := range selector {
		if k == "batchIndex.$" {
			assert.Equal(t, "$$.Map.Item.Value", v)
			continue
		}
		assert.Contains(t, prepared, v.(string)[2:], "item field %s", k)
	}
	child := payloadFields(ss["MapBatchInChild"]["Parameters"].(map[string]any)["Payload"].(map[string]any))
	assert.Equal(t, payloadFields(ss["MapBatch"]["Parameters"].(map[string]any)["Payload"].(map[string]any)), child,
		"the child invokes map as the inline iteration does")
	assert.Equal(t, ss["MapBatch"]["Retry"], ss["MapBatchInChild"]["Retry"], "a batch gets the same retries in either mode")

	pass := ss["MapResultsInRunsTable"]
	assert.Equal(t, []any{}, pass["Result"])
	assert.Equal(t, "$.mapResults", pass["ResultPath"])
	assert.Equal(t, "ReduceMode", pass["Next"], "then Reduce, or PlanReduceRound in tree mode (TestReduceRounds)")
	for _, name := range []string{"Reduce", "RecordReduceFailure", "PlanReduceRound"} {
		payload := ss[name]["Parameters"].(map[string]any)["Payload"].(map[string]any)
		assert.Equal(t, "$.mode", payload["mode.$"], "%s learns where the failures are", name)
	}

	// RecordBatchFailure writes what shared/store's MapFailures reads.
	rec := ss["RecordBatchFailure"]
	assert.Equal(t, "arn:aws:states:::dynamodb:putItem", rec["Resource"])
	params := rec["Parameters"].(map[string]any)
	assert.Equal(t, "${RunsTableName}", params["TableName"])
	item := params["Item"].(map[string]any)
	var keys []string
	for k := range item {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, []string{"batchIndex", "error", "expiresAt", "queryId", "runId", "sk"}, keys, "the attributes shared/store reads")
	assert.Equal(t, map[string]any{"S.$": "States.Format('map-failure#{}#{}', $.runId, $.batchIndex)"}, item["sk"])
	assert.Equal(t, map[string]any{"N.$": "States.JsonToString($.expiresAt)"}, item["expiresAt"], "the record expires with its run")
	assert.Equal(t, map[string]any{"S.$": "$.error.Error"}, item["error"])
	for _, name := range []string{"RecordBatchFailure", "BatchFailureUnrecorded"} {
		assert.Contains(t, ss[name], "OutputPath")
		assert.Nil(t, ss[name]["OutputPath"], "%s: a child's output is {}", name)
		assert.Equal(t, true, ss[name]["End"])
	}
}
