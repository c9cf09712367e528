package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// roundsBatches is the batch count of the reduce-rounds cases: eight map
// answers, two to a reduce prompt (roundsRequest), make four groups in
// round 1, two in round 2 and a final call over two.
const roundsBatches = 8

// longAnswer is an answer of about answerTokens estimated tokens, the
// same size for a map answer and an intermediate one, so that the
// grouping is two candidates to a prompt in every round.
func longAnswer(what string) string {
	line := what + " finds that trade along the river grew with the schools. "
	return strings.Repeat(line, 4*answerTokens/len(line)+1)
}

const answerTokens = 400

// roundsTimeout bounds a reduce-rounds execution: about twenty tasks and
// their retries' sleeps, one after another when the case runs one group at
// a time, take moto a minute or more on two shared cores.
const roundsTimeout = 3 * executionTimeout

// roundsModel answers map batches and reduce groups with long answers and
// the final reduce with a short synthesis; fail decides which calls fail
// instead (a Bedrock 400, which the SDK does not retry).
func roundsModel(fail func(call modelCall) bool) func(call modelCall) modeltest.ConverseReply {
	return func(call modelCall) modeltest.ConverseReply {
		switch {
		case fail != nil && fail(call):
			return modelError()
		case call.Function == "map":
			return mapAnswer(longAnswer(fmt.Sprintf("Batch %d", call.Batch)), float64(50+call.Batch))
		case call.Task == "group":
			return reduceAnswer(longAnswer(fmt.Sprintf("Group %d of round %d", call.Group, call.Round)))
		}
		return reduceAnswer("Synthesis of the rounds.")
	}
}

// roundsRequest is a tree-mode request whose reduce prompt holds two long
// answers and not three (counted by the estimate, which the request names,
// so the grouping does not hang on a tokenizer's rates), over the
// roundsBatches one-summary batches of loadIndex.
func roundsRequest(queryID, namespace, mode string) map[string]any {
	r := request(queryID, namespace)
	one := tokens.Estimate(longAnswer("Group 0 of round 1"))
	skeleton := max(tokens.Estimate(globalsearch.DefaultPrompts().Reduce.Skeleton(query)), tokens.Estimate(globalsearch.DefaultPrompts().Round.Skeleton(query)))
	const reserve = 200
	r["reduceOutputReserve"] = reserve
	r["reduceTokenBudget"] = skeleton + 2*one + one/2 + reserve
	r["tokenizer"] = "estimate"
	r["reduceMode"] = mode
	return r
}

// TestReduceRoundsOnAWS runs a reduce in rounds on the state machine
// (docs/contract.md#reduce-rounds): eight map answers, two to a prompt,
// are reduced in two rounds of groups (an inline Map each) and a final
// call. A group whose first call fails is retried once (the Map's Retry)
// and answers; a group that fails both attempts is reported as failed and
// the others go on, so the result is partial, not lost. In single mode the
// same run goes from the map to Reduce as it always did: one reduce
// invocation, no round, and the answers past the budget skipped.
func TestReduceRoundsOnAWS(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Round 1: group 1's first attempt fails, group 2's both.
	faults := func(c modelCall) bool {
		return c.Task == "group" && c.Round == 1 && (c.Group == 2 || (c.Group == 1 && c.N == 1))
	}
	cases := []struct {
		name       string
		mode       string
		inlineMax  int // Handlers.InlineMaxBatches; 0 for the default
		fail       func(modelCall) bool
		wantStatus globalsearch.Status
		// wantTasks are the reduce invocations by task ("" the final call).
		wantTasks  map[string]int
		wantRounds []int // groups per round, the final call last
		wantFailed map[int][]int
		wantCalls  int // reduce model calls
	}{
		{name: "tree, a group retried and a group failed", mode: "tree", fail: faults, wantStatus: globalsearch.StatusPartial,
			wantTasks:  map[string]int{"round": 3, "group": 4 + 2 + 2, "": 1},
			wantRounds: []int{4, 2, 1}, wantFailed: map[int][]int{1: {2}}, wantCalls: 6 + 2 + 1},
		{name: "tree, every group answered, after a Distributed Map", mode: "tree", inlineMax: 2, wantStatus: globalsearch.StatusCompleted,
			wantTasks:  map[string]int{"round": 3, "group": 4 + 2, "": 1},
			wantRounds: []int{4, 2, 1}, wantFailed: map[int][]int{}, wantCalls: 4 + 2 + 1},
		{name: "single", mode: "single", wantStatus: globalsearch.StatusCompleted,
			wantTasks: map[string]int{"": 1}, wantRounds: nil, wantFailed: map[int][]int{}, wantCalls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := e
			if tc.inlineMax > 0 {
				// The inline budget is the handlers': a moto of its own.
				e = newEnv(t)
				e.handlers.InlineMaxBatches = tc.inlineMax
			}
			slug := strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", "-"), ",", "")
			queryID := uniqueName("q-rounds-" + slug)
			namespace := strings.ToLower(uniqueName("ns-rounds"))
			e.loadIndex(t, namespace, roundsBatches)
			rn := newRun()
			rn.model = roundsModel(tc.fail)
			e.lambda.register(queryID, rn)
			m := e.newStateMachine(t)
			in := roundsRequest(queryID, namespace, tc.mode)
			if tc.fail != nil {
				// One group at a time: moto's Retry state race needs two
				// iterations failing together.
				in["mapConcurrency"] = 1
			}
			arn := e.start(t, m, queryID, in)
			out := e.waitFor(t, m, arn, roundsTimeout)
			require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
			res, err := e.runs.Result(context.Background(), queryID)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, res.Status, res.Error)
			assert.Equal(t, roundsBatches, rn.count("map"), "one map invocation per batch")

			rn.mu.Lock()
			tasks := map[string]int{"": rn.invokes["reduce"] - rn.tasks["reduce/round"] - rn.tasks["reduce/group"]}
			for _, task := range []string{"round", "group"} {
				if n := rn.tasks["reduce/"+task]; n > 0 {
					tasks[task] = n
				}
			}
			reduceCalls := rn.models[-1]
			rn.mu.Unlock()
			assert.Equal(t, tc.wantTasks, tasks, "reduce invocations by task")
			assert.Equal(t, tc.wantCalls, reduceCalls, "reduce model calls")

			red := res.Diagnostics.Reduce
			assert.Equal(t, tc.wantCalls, red.ModelCalls, "the result counts every reduce call")
			var groups []int
			failed := map[int][]int{}
			for _, r := range red.PerRound {
				groups = append(groups, r.Groups)
				for _, g := range r.FailedGroups {
					failed[r.Round] = append(failed[r.Round], g.Index)
					assert.Equal(t, 2, g.Answers, "the failed group held two map answers")
				}
			}
			assert.Equal(t, tc.wantRounds, groups, "groups per round")
			assert.Equal(t, tc.wantFailed, failed, "failed groups by round")
			entered := statesEntered(t, e, m, arn)
			if tc.mode == "single" {
				assert.Equal(t, 1, red.Rounds)
				assert.NotContains(t, entered, "PlanReduceRound", "single mode takes the path it took before rounds")
				assert.NotContains(t, entered, "ReduceGroups")
				assert.Equal(t, roundsBatches-2, res.Diagnostics.Coverage.MapAnswers.SkippedForBudget, "two of the eight fit the one reduce prompt")
				return
			}
			assert.Equal(t, len(tc.wantRounds), red.Rounds, "the final call counts as a round")
			assert.Equal(t, len(tc.wantRounds)-1, entered["ReduceGroups"], "one inline Map per round of groups")
			assert.Zero(t, res.Diagnostics.Coverage.MapAnswers.SkippedForBudget, "every useful answer reached a reduce call")
			t.Logf("%s: %d history events, rounds %v, reduce calls %d", tc.name, len(e.events(t, m, arn)), groups, red.ModelCalls)
		})
	}
}

// statesEntered counts an execution's StateEntered events by state name.
func statesEntered(t *testing.T, e *env, m machine, arn string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, ev := range e.events(t, m, arn) {
		if d := ev.StateEnteredEventDetails; d != nil {
			out[aws.ToString(d.Name)]++
		}
	}
	return out
}

// sortedItems is runItems, sorted, for comparing the runs table's contents.
func (e *env) sortedItems(t *testing.T, queryID string) []string {
	items := e.runItems(t, queryID)
	slices.Sort(items)
	return items
}

// TestReduceRoundsEveryGroupFailed: when every group of a round fails both
// attempts, no answer reaches the final call, so the run fails: the
// execution ends failed after the runs table says so, naming the round,
// and no final reduce call is made (docs/contract.md#reduce-rounds).
func TestReduceRoundsEveryGroupFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	queryID := uniqueName("q-rounds-all-failed")
	namespace := strings.ToLower(uniqueName("ns-rounds-all-failed"))
	e.loadIndex(t, namespace, roundsBatches)
	rn := newRun()
	rn.model = roundsModel(func(c modelCall) bool { return c.Task == "group" })
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	in := roundsRequest(queryID, namespace, "tree")
	in["mapConcurrency"] = 1 // moto's Retry state race, as above
	arn := e.start(t, m, queryID, in)
	out := e.waitFor(t, m, arn, roundsTimeout)
	require.Equal(t, sfntypes.ExecutionStatusFailed, out.Status, e.history(m, arn))
	res, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "every group of reduce round 1 failed")
	rn.mu.Lock()
	defer rn.mu.Unlock()
	assert.Equal(t, 4*2, rn.models[-1], "four groups, two attempts each, and no final call")
	assert.Equal(t, 4*2, rn.tasks["reduce/group"])
}

// TestReduceRoundsRefusedAtPrepare: a tree plan whose worst-case groups
// pass what the state machine runs (the engine's MaxReduceGroups, which
// StepEngine sets from the history budget and the test lowers) is
// refused by prepare before any model call: the execution fails as plan
// too large after the runs table says failed, and no map or reduce task
// runs (docs/contract.md#plan-limits).
func TestReduceRoundsRefusedAtPrepare(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	workflow.StepEngine(e.engine)
	e.engine.MaxReduceGroups = 1
	queryID := uniqueName("q-rounds-refused")
	namespace := strings.ToLower(uniqueName("ns-rounds-refused"))
	e.loadIndex(t, namespace, roundsBatches)
	rn := newRun()
	rn.model = roundsModel(nil)
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	in := roundsRequest(queryID, namespace, "tree")
	// At their worst the map answers are at the default output reserve:
	// a prompt that holds three of them makes groups of every eight.
	skeleton := max(tokens.Estimate(globalsearch.DefaultPrompts().Reduce.Skeleton(query)), tokens.Estimate(globalsearch.DefaultPrompts().Round.Skeleton(query)))
	in["reduceTokenBudget"] = skeleton + 3*(globalsearch.SpecDefaults.MapOutputReserve+50) + in["reduceOutputReserve"].(int)
	arn := e.start(t, m, queryID, in)
	out := e.waitFor(t, m, arn, roundsTimeout)
	require.Equal(t, sfntypes.ExecutionStatusFailed, out.Status, e.history(m, arn))
	assert.Equal(t, "PlanTooLargeError", aws.ToString(out.Error), aws.ToString(out.Cause))
	res, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "reduce groups")
	assert.Contains(t, res.Error, "the state machine runs at most 1")
	rn.mu.Lock()
	defer rn.mu.Unlock()
	assert.Empty(t, rn.models, "no model call")
	assert.Zero(t, rn.invokes["map"]+rn.invokes["reduce"], "no map or reduce task")
}
