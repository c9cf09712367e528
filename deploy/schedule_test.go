package deploy_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The example schedule asks a standing question with stable batching
// (docs/contract.md#standing-questions), and its input is a request the
// state machine's prepare accepts, the execution name as its query id.
func TestScheduleInputIsAStandingQuestion(t *testing.T) {
	s := translate(t, nil)
	input, ok := path(s.resource(t, "NightlySearchSchedule", "AWS::Scheduler::Schedule"), "Target", "Input").(string)
	require.True(t, ok, "the schedule's target has a JSON input")
	var fields map[string]any
	require.NoError(t, json.Unmarshal([]byte(input), &fields))
	assert.Equal(t, "nightly-themes", fields["standingQuery"])
	assert.Equal(t, "stable", fields["batching"])
	assert.NotContains(t, fields, "queryId", "each run takes its execution name as its query id")

	data, err := json.Marshal(fields)
	require.NoError(t, err)
	p, err := globalsearch.ParseRequestWithID(data, globalsearch.SpecDefaults, "0b6e0d52-5f7b-4c2e-9c1e-6f0c7d1e2a3b")
	require.NoError(t, err)
	assert.Equal(t, "nightly-themes", p.StandingQuery)
	assert.Equal(t, "stable", p.Batching)
	assert.Equal(t, "0b6e0d52-5f7b-4c2e-9c1e-6f0c7d1e2a3b", p.QueryID)
}
