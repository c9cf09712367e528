package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// fakeSteps records what the reduce tasks ask of the domain's steps and
// answers as told.
type fakeSteps struct {
	round globalsearch.ReduceRound
	err   error

	failures []globalsearch.BatchFailure
	calls    []string
}

func (f *fakeSteps) PlanReduceRound(_ context.Context, queryID, runID string, failures []globalsearch.BatchFailure) (globalsearch.ReduceRound, error) {
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
		{"unknown task", `{"queryId":"q1","runId":"r1","task":"rounds","mapResults":[]}`, `task "rounds" is not "round", "group" or "stopped"`},
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
		round         globalsearch.ReduceRound
		err           error
		want          string
		wantType      string
		wantFailed    []int
	}{
		{name: "a round of three groups", payload: inline, round: globalsearch.ReduceRound{Round: 2, Groups: 3},
			want: `{"queryId":"q1","reduceRound":{"round":2,"groups":3,"groupIndexes":[0,1,2]}}`, wantFailed: []int{1}},
		{name: "no groups: to Reduce", payload: inline, round: globalsearch.ReduceRound{Round: 3},
			want: `{"queryId":"q1","reduceRound":{"round":3,"groups":0,"groupIndexes":[]}}`, wantFailed: []int{1}},
		{name: "distributed: the failures recorded", payload: `{"queryId":"q1","runId":"r1","task":"round","mode":"distributed","mapResults":[]}`,
			round: globalsearch.ReduceRound{Round: 1, Groups: 1},
			want:  `{"queryId":"q1","reduceRound":{"round":1,"groups":1,"groupIndexes":[0]}}`, wantFailed: []int{4}},
		{name: "a cancelled or replaced run", payload: inline, err: globalsearch.Errorf(globalsearch.KindNotFound, "run r1 of q1 was cancelled"),
			wantType: "NotFoundError", wantFailed: []int{1}},
		{name: "past the rounds the history holds", payload: inline, round: globalsearch.ReduceRound{Round: workflow.MaxReduceRounds + 1, Groups: 2},
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

// treeModel answers every map batch and every reduce group with an answer
// of about 400 estimated tokens, and the final reduce with a short one.
func treeModel() *fakeModel {
	long := strings.Repeat("Trade along the river grew with the schools. ", 36)
	return &fakeModel{complete: func(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		switch {
		case req.Stage != globalsearch.StageReduce:
			return globalsearch.ModelResponse{Text: `{"answer":"` + long + `","usefulness":60}`, InputTokens: 10, OutputTokens: 5}, nil
		case req.ResponseType == globalsearch.IntermediateResponseType:
			return globalsearch.ModelResponse{Text: `{"answer":"` + long + `"}`, InputTokens: 10, OutputTokens: 5}, nil
		}
		return globalsearch.ModelResponse{Text: `{"answer":"final answer"}`, InputTokens: 10, OutputTokens: 5}, nil
	}}
}

// treeRequest is a tree-mode request whose reduce prompt holds two of
// treeModel's long answers and not three, by the estimate it names.
func treeRequest(queryID, mode string) string {
	long := strings.Repeat("Trade along the river grew with the schools. ", 36)
	one := tokens.Estimate(long)
	prompts := globalsearch.DefaultPrompts()
	skeleton := max(tokens.Estimate(prompts.Reduce.Skeleton("what changed?")), tokens.Estimate(prompts.Round.Skeleton("what changed?")))
	return fmt.Sprintf(`{"query":"what changed?","queryId":%q,"shuffle":false,"tokenizer":"estimate","reduceMode":%q,"reduceOutputReserve":100,"reduceTokenBudget":%d}`,
		queryID, mode, skeleton+2*one+one/2+100)
}

// runTree runs prepare, the map and the reduce in rounds through the
// handlers as the state machine runs them (two attempts a group), and
// returns prepare's output, the groups of each round and reduce's error.
func runTree(t *testing.T, h *workflow.Handlers, queryID, mode string) (workflow.PrepareOutput, []int, error) {
	t.Helper()
	raw, err := invoke(t, h.Prepare, `{"request":`+treeRequest(queryID, mode)+`}`)
	require.NoError(t, err)
	var out workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	for _, i := range out.BatchIndexes {
		_, err := invoke(t, h.Map, fmt.Sprintf(`{"queryId":%q,"runId":%q,"batchIndex":%d,"attempt":1}`, queryID, out.RunID, i))
		require.NoError(t, err)
	}
	var groups []int
	for out.ReduceMode == workflow.ReduceTree {
		raw, err := invoke(t, h.Reduce, fmt.Sprintf(`{"task":"round","queryId":%q,"runId":%q,"mode":%q,"mapResults":[]}`, queryID, out.RunID, out.Mode))
		require.NoError(t, err)
		var round workflow.ReduceOutput
		require.NoError(t, json.Unmarshal([]byte(raw), &round))
		require.NotNil(t, round.ReduceRound)
		if round.ReduceRound.Groups == 0 {
			break
		}
		groups = append(groups, round.ReduceRound.Groups)
		for _, g := range round.ReduceRound.GroupIndexes {
			for attempt := 1; attempt <= globalsearch.ReduceGroupAttempts; attempt++ {
				in := fmt.Sprintf(`{"task":"group","queryId":%q,"runId":%q,"round":%d,"groupIndex":%d,"attempt":%d}`, queryID, out.RunID, round.ReduceRound.Round, g, attempt)
				if _, err := invoke(t, h.Reduce, in); err == nil {
					break
				}
			}
		}
	}
	_, err = invoke(t, h.Reduce, fmt.Sprintf(`{"queryId":%q,"runId":%q,"mode":%q,"mapResults":[]}`, queryID, out.RunID, out.Mode))
	return out, groups, err
}

// TestReduceRoundsInSteps: the deployed steps of a reduce in rounds give
// what one process gives (docs/contract.md#reduce-rounds): prepare names
// the request's reduce mode for the ReduceMode Choice, the round and group
// tasks reduce three answers, two to a prompt, in one round of two groups
// and the final call, and the result equals Search's over the same index
// and model. In single mode no round task is needed at all.
func TestReduceRoundsInSteps(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		mode       string
		wantGroups []int
		wantRounds int
	}{
		{workflow.ReduceTree, []int{2}, 2},
		{workflow.ReduceSingle, nil, 1},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			h, s := fixture(t, treeModel())
			out, groups, err := runTree(t, h, "steps", tc.mode)
			require.NoError(t, err)
			assert.Equal(t, tc.mode, out.ReduceMode)
			assert.Equal(t, tc.wantGroups, groups)
			stepped, err := s.Result(ctx, "steps")
			require.NoError(t, err)

			parsed, err := globalsearch.ParseRequest([]byte(treeRequest("inprocess", tc.mode)), h.Defaults)
			require.NoError(t, err)
			searched, err := h.Engine.Search(ctx, parsed)
			require.NoError(t, err)
			assert.Equal(t, searched.Status, stepped.Status)
			assert.Equal(t, searched.Answer, stepped.Answer)
			assert.Equal(t, tc.wantRounds, stepped.Diagnostics.Reduce.Rounds)
			assert.Equal(t, searched.Diagnostics.Reduce.Rounds, stepped.Diagnostics.Reduce.Rounds)
			assert.Equal(t, searched.Diagnostics.Reduce.PerRound, stepped.Diagnostics.Reduce.PerRound)
			assert.Equal(t, searched.Diagnostics.Reduce.ModelCalls, stepped.Diagnostics.Reduce.ModelCalls)
			assert.Equal(t, searched.Diagnostics.Coverage, stepped.Diagnostics.Coverage)
		})
	}
}

// TestPrepareNamesReduceMode: prepare's output names the run's reduce mode
// once the run is planned (docs/contract.md#reduce-rounds): the request's,
// else the deployment's default, also at the end of a dynamic selection,
// where SelectNext reads it from the stored request; a rating round's
// output names none, since the map does not follow it.
func TestPrepareNamesReduceMode(t *testing.T) {
	for _, tc := range []struct {
		name, request, deployed, want string
	}{
		{"no reduceMode", `{"query":"what changed?","queryId":"q1"}`, "", workflow.ReduceSingle},
		{"tree", `{"query":"what changed?","queryId":"q1","reduceMode":"tree"}`, "", workflow.ReduceTree},
		{"the deployment's tree", `{"query":"what changed?","queryId":"q1"}`, workflow.ReduceTree, workflow.ReduceTree},
		{"single over the deployment's tree", `{"query":"what changed?","queryId":"q1","reduceMode":"single"}`, workflow.ReduceTree, workflow.ReduceSingle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := fixture(t, answering(50))
			if tc.deployed != "" {
				h.Defaults.ReduceMode = tc.deployed
			}
			raw, err := invoke(t, h.Prepare, `{"request":`+tc.request+`}`)
			require.NoError(t, err)
			var out workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(raw), &out))
			assert.Equal(t, tc.want, out.ReduceMode)
		})
	}
	t.Run("after a dynamic selection", func(t *testing.T) {
		prepare, mapper, _ := selectionHandlers(t, selectionModel(nil))
		first, err := invoke(t, prepare.Prepare, `{"request":`+strings.Replace(dynamicRequest, `"queryId"`, `"reduceMode":"tree","queryId"`, 1)+`,"executionName":"dyn"}`)
		require.NoError(t, err)
		assert.NotContains(t, first, "reduceMode", "a rating round's output: the map does not follow it")
		out, _, err := runStepsOf(t, prepare, mapper, strings.Replace(dynamicRequest, `"queryId"`, `"reduceMode":"tree","queryId"`, 1))
		require.NoError(t, err)
		assert.Equal(t, workflow.ModeInline, out.Mode)
		assert.Equal(t, workflow.ReduceTree, out.ReduceMode, "SelectNext's plan names the stored request's mode")
	})
}
