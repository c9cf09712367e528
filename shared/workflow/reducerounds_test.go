package workflow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// fakeSteps records what the reduce tasks ask of the domain's steps and
// answers as told.
type fakeSteps struct {
	round workflow.PlannedRound
	err   error

	failures []globalsearch.BatchFailure
	calls    []string
}

func (f *fakeSteps) PlanReduceRound(_ context.Context, queryID, runID string, failures []globalsearch.BatchFailure) (workflow.PlannedRound, error) {
	f.calls = append(f.calls, fmt.Sprintf("round %s %s", queryID, runID))
	f.failures = failures
	return f.round, f.err
}

func (f *fakeSteps) ReduceGroupAttempt(_ context.Context, queryID, runID string, round, index, attempt int) error {
	f.calls = append(f.calls, fmt.Sprintf("group %s %s %d %d %d", queryID, runID, round, index, attempt))
	return f.err
}

// TestReduceTaskInputs: a reduce task input that mixes the tasks' fields,
// or lacks what its task needs, is InvalidInputError before any step runs.
func TestReduceTaskInputs(t *testing.T) {
	cases := []struct {
		name, payload, wantMsg string
	}{
		{"unknown task", `{"queryId":"q1","runId":"r1","task":"rounds","mapResults":[]}`, `task "rounds" is neither "round" nor "group"`},
		{"final reduce with a group's round", `{"queryId":"q1","runId":"r1","round":1,"mapResults":[]}`, `round, groupIndex and attempt belong to task "group"`},
		{"final reduce with an attempt", `{"queryId":"q1","runId":"r1","attempt":1,"mapResults":[]}`, `belong to task "group"`},
		{"round without a run", `{"queryId":"q1","task":"round","mapResults":[]}`, "round task input needs a queryId and a runId"},
		{"round without a query", `{"runId":"r1","task":"round","mapResults":[]}`, "round task input needs a queryId and a runId"},
		{"round with a failure", `{"queryId":"q1","runId":"r1","task":"round","mapResults":[],"failure":{"Error":"ModelError","Cause":"x"}}`, "no failure"},
		{"round with a round", `{"queryId":"q1","runId":"r1","task":"round","round":2,"mapResults":[]}`, "no failure, round, groupIndex or attempt"},
		{"group without a round", `{"queryId":"q1","runId":"r1","task":"group","groupIndex":0,"attempt":1}`, "a round from 1"},
		{"group without a run", `{"queryId":"q1","task":"group","round":1,"groupIndex":0,"attempt":1}`, "group task input needs a queryId, a runId"},
		{"group with a negative index", `{"queryId":"q1","runId":"r1","task":"group","round":1,"groupIndex":-1,"attempt":1}`, "a groupIndex >= 0"},
		{"group with map results", `{"queryId":"q1","runId":"r1","task":"group","round":1,"groupIndex":0,"attempt":1,"mapResults":[]}`, "no mode, mapResults or failure"},
		{"group with a mode", `{"queryId":"q1","runId":"r1","task":"group","round":1,"groupIndex":0,"attempt":1,"mode":"inline"}`, "no mode, mapResults or failure"},
		{"group with an unknown field", `{"queryId":"q1","runId":"r1","task":"group","round":1,"group":0}`, `reduce task input: unknown field "group"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps := &fakeSteps{}
			h, _ := fixture(t, answering(50))
			h.Rounds = steps
			_, err := invoke(t, h.Reduce, tc.payload)
			require.Error(t, err)
			assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
			assert.Contains(t, err.Error(), tc.wantMsg)
			assert.Empty(t, steps.calls, "no step runs on a bad input")
		})
	}
}

// TestPlanReduceRoundTask: the round task hands the map's failures to
// PlanReduceRound as Reduce would get them and answers the round the
// ReduceGroups Map runs, its group indexes written out, none for a round
// without groups; a step's error keeps its name, and a round past the
// history's bound is refused as too large (docs/contract.md#reduce-rounds).
func TestPlanReduceRoundTask(t *testing.T) {
	inline := `{"queryId":"q1","runId":"r1","task":"round","mapResults":[{"batchIndex":0,"usefulness":60},{"failed":true,"batchIndex":1,"error":"ModelError"}]}`
	cases := []struct {
		name, payload string
		round         workflow.PlannedRound
		err           error
		want          string
		wantType      string
		wantFailed    []int
	}{
		{name: "a round of three groups", payload: inline, round: workflow.PlannedRound{Round: 2, Groups: 3},
			want: `{"queryId":"q1","reduceRound":{"round":2,"groups":3,"groupIndexes":[0,1,2]}}`, wantFailed: []int{1}},
		{name: "no groups: to Reduce", payload: inline, round: workflow.PlannedRound{Round: 3},
			want: `{"queryId":"q1","reduceRound":{"round":3,"groups":0,"groupIndexes":[]}}`, wantFailed: []int{1}},
		{name: "distributed: the failures recorded", payload: `{"queryId":"q1","runId":"r1","task":"round","mode":"distributed","mapResults":[]}`,
			round: workflow.PlannedRound{Round: 1, Groups: 1},
			want:  `{"queryId":"q1","reduceRound":{"round":1,"groups":1,"groupIndexes":[0]}}`, wantFailed: []int{4}},
		{name: "a cancelled or replaced run", payload: inline, err: globalsearch.Errorf(globalsearch.KindNotFound, "run r1 of q1 was cancelled"),
			wantType: "NotFoundError", wantFailed: []int{1}},
		{name: "past the rounds the history holds", payload: inline, round: workflow.PlannedRound{Round: workflow.MaxReduceRounds + 1, Groups: 2},
			wantType: "PlanTooLargeError", wantFailed: []int{1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps := &fakeSteps{round: tc.round, err: tc.err}
			h, _ := fixture(t, answering(50))
			h.Rounds = steps
			h.Failures = &recorded{failures: map[int]string{4: "ThrottledError"}}
			out, err := invoke(t, h.Reduce, tc.payload)
			if tc.wantType != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantType, workflow.ErrorType(err))
			} else {
				require.NoError(t, err)
				assert.JSONEq(t, tc.want, out)
			}
			assert.Equal(t, []string{"round q1 r1"}, steps.calls)
			var failed []int
			for _, f := range steps.failures {
				failed = append(failed, f.BatchIndex)
				assert.Equal(t, workflow.MapAttempts, f.Attempts)
			}
			assert.Equal(t, tc.wantFailed, failed)
		})
	}
}

// TestReduceGroupTask: the group task makes one attempt at the group it
// names (attempt 1 when the input names none, as a hand-made event may)
// and answers its query id alone; a failed attempt keeps its error's name
// for the Retry.
func TestReduceGroupTask(t *testing.T) {
	cases := []struct {
		name, payload string
		err           error
		wantCall      string
		wantType      string
	}{
		{name: "second attempt", payload: `{"queryId":"q1","runId":"r1","task":"group","round":2,"groupIndex":3,"attempt":2}`,
			wantCall: "group q1 r1 2 3 2"},
		{name: "no attempt named", payload: `{"queryId":"q1","runId":"r1","task":"group","round":1,"groupIndex":0}`,
			wantCall: "group q1 r1 1 0 1"},
		{name: "bad model output", payload: `{"queryId":"q1","runId":"r1","task":"group","round":1,"groupIndex":0,"attempt":1}`,
			err: globalsearch.Errorf(globalsearch.KindModelOutput, "group 0: not JSON"), wantCall: "group q1 r1 1 0 1", wantType: "ModelOutputError"},
		{name: "a replaced run", payload: `{"queryId":"q1","runId":"r1","task":"group","round":1,"groupIndex":0,"attempt":1}`,
			err: globalsearch.Errorf(globalsearch.KindNotFound, "run r1 of q1 was replaced by a newer plan"), wantCall: "group q1 r1 1 0 1", wantType: "NotFoundError"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps := &fakeSteps{err: tc.err}
			h, _ := fixture(t, answering(50))
			h.Rounds = steps
			out, err := invoke(t, h.Reduce, tc.payload)
			if tc.wantType != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantType, workflow.ErrorType(err))
			} else {
				require.NoError(t, err)
				assert.JSONEq(t, `{"queryId":"q1"}`, out)
			}
			assert.Equal(t, []string{tc.wantCall}, steps.calls)
		})
	}
}
