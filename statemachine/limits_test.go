package statemachine_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
	"github.com/graphrag-global/graphrag-global/statemachine"
)

// The limits the definition lives within: each task's deadlines, the
// execution's history and its lifetime against the runs' items.

// templateTimeouts reads each function's Timeout (seconds) from
// template.yaml, by logical id, with the same line scanner as
// templateSubstitutions.
func templateTimeouts(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile("../template.yaml")
	require.NoError(t, err)
	out := map[string]int{}
	resource := ""
	for _, line := range strings.Split(string(data), "\n") {
		if m := regexp.MustCompile(`^  (\w+):\s*$`).FindStringSubmatch(line); m != nil {
			resource = m[1]
		}
		if m := regexp.MustCompile(`^      Timeout: (\d+)\s*$`).FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			out[resource] = n
		}
	}
	return out
}

// invokeSlack is what a task's TimeoutSeconds allows beyond its function's
// Timeout: a cold start's init (up to 10 s, not counted in Timeout) and the
// Invoke round trip, so a hung function ends with the Lambda timeout's own
// error (Sandbox.Timedout) rather than States.Timeout.
const invokeSlack = 30 * time.Second

// TestTimeoutsAgree ties the three deadlines of every Lambda task: the
// handler gives up Margin before its deadline (a named, retryable error),
// Lambda stops the function at Timeout (template.yaml), and the state
// machine stops waiting at TimeoutSeconds, which must come last.
func TestTimeoutsAgree(t *testing.T) {
	timeouts := templateTimeouts(t)
	tasks := 0
	for name, s := range states(t) {
		params, _ := s["Parameters"].(map[string]any)
		fn, _ := params["FunctionName"].(string)
		m := regexp.MustCompile(`^\$\{(\w+)Arn\}$`).FindStringSubmatch(fn)
		if m == nil {
			continue
		}
		tasks++
		t.Run(name, func(t *testing.T) {
			secs, ok := timeouts[m[1]]
			require.True(t, ok, "template.yaml sets no Timeout for %s", m[1])
			require.Contains(t, s, "TimeoutSeconds", "a task without TimeoutSeconds waits up to a year")
			timeout := time.Duration(secs) * time.Second
			taskTimeout := time.Duration(s["TimeoutSeconds"].(float64)) * time.Second
			handler := timeout - workflow.Margin(timeout)
			assert.Less(t, handler, timeout, "the handler answers before Lambda stops it")
			assert.Equal(t, timeout+invokeSlack, taskTimeout, "TimeoutSeconds of %s is %s's Timeout + %s", name, m[1], invokeSlack)
		})
	}
	assert.Equal(t, 10, tasks, "Prepare, SelectNext, RateBatch, MapBatch, MapBatchInChild, Reduce, RecordReduceFailure, PlanReduceRound, ReduceGroup, RecordFailureSpend")
}

// TestHistoryBudget pins InlineMaxBatches to the history limit: every
// batch failing twice after every Lambda-service and throttle retry its
// task allows, plus every state outside the Map retried to its limit and
// the failure recorded, fits in one execution's history. The per-batch
// figures are measured by shared/workflow/e2e (TestHistoryBudget there).
func TestHistoryBudget(t *testing.T) {
	retries := 0
	for _, r := range definedPolicies(t)["MapBatch"].Retry {
		if strings.HasPrefix(r.ErrorEquals[0], "Lambda.") {
			require.NotNil(t, r.MaxAttempts, "an explicit MaxAttempts")
			retries += *r.MaxAttempts
		}
	}
	assert.Equal(t, workflow.MapLambdaRetries, retries, "the map task's Lambda-service and throttle retries")
	policies := definedPolicies(t)
	assert.Equal(t, policies["MapBatch"].Retry, policies["RateBatch"].Retry, "a rating batch is retried as a map batch, so it costs the same events")
	outside := statemachine.EventsOutsideMap()
	perBatch := workflow.HistoryEventsPerFailedBatch + retries*workflow.HistoryEventsPerLambdaRetry
	// A dynamic selection passes through its loop once a round, and its
	// rating batches and an inline map's share InlineMaxBatches
	// (docs/contract.md#plan-limits).
	loop := workflow.MaxSelectionRounds * statemachine.EventsPerSelectionRound()
	// So does a reduce in rounds, once a round, and its groups, each
	// retried as a map batch, share InlineMaxBatches too
	// (docs/contract.md#reduce-rounds).
	assert.Equal(t, policies["MapBatch"].Retry, policies["ReduceGroup"].Retry, "a reduce group is retried as a map batch, so it costs the same events")
	reduceLoop := workflow.MaxReduceRounds * statemachine.EventsPerReduceRound()
	worst := outside + loop + reduceLoop + workflow.InlineMaxBatches*perBatch
	t.Logf("worst case: %d outside the Map + %d selection rounds' loop (%d) + %d reduce rounds' loop (%d) + %d batches x %d = %d of %d events",
		outside, workflow.MaxSelectionRounds, loop, workflow.MaxReduceRounds, reduceLoop, workflow.InlineMaxBatches, perBatch, worst, workflow.HistoryLimit)
	assert.LessOrEqual(t, worst, workflow.HistoryLimit)
	assert.LessOrEqual(t, workflow.MaxRatingBatches, workflow.InlineMaxBatches, "every rating batch fits the inline budget")
	assert.Greater(t, outside, 50, "the bound counts every state outside the Map")
}

// TestRunsOutliveExecutions: a run never outlives its items
// (docs/contract.md#tables). The execution's TimeoutSeconds bounds how
// long a run lasts (the map stage of a large plan has no other bound), it
// is the duration the functions check RUNS_TTL_DAYS against
// (workflow.MaxExecution), and the template refuses a RunsTtlDays that is
// not longer.
func TestRunsOutliveExecutions(t *testing.T) {
	seconds, ok := definition(t)["TimeoutSeconds"].(float64)
	require.True(t, ok, "the state machine has an execution timeout")
	assert.Equal(t, workflow.MaxExecution, time.Duration(seconds)*time.Second)

	data, err := os.ReadFile("../template.yaml")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^  RunsTtlDays:\n(?:    .*\n)*?    MinValue: (\d+)\n`).FindSubmatch(data)
	require.NotNil(t, m, "RunsTtlDays has a MinValue")
	days, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	assert.Greater(t, time.Duration(days)*24*time.Hour, workflow.MaxExecution, "the shortest RunsTtlDays outlasts the longest execution")
}

// TestReduceGroupsWithinTheCeiling: the worst case a plan is held to
// counts every attempt at every reduce group, so a model-call ceiling of
// at most 2 x InlineMaxBatches + 2 keeps a run's map batches, rating
// batches and reduce groups, each attempted twice, within the inline
// Map's budget; the deployment's default ceiling is far below it
// (docs/contract.md#plan-limits).
func TestReduceGroupsWithinTheCeiling(t *testing.T) {
	assert.Equal(t, globalsearch.MapAttempts, globalsearch.ReduceGroupAttempts, "a group is attempted as a batch is")
	assert.Equal(t, globalsearch.MapAttempts, globalsearch.RatingAttempts, "a rating batch is attempted as a batch is")
	items := (globalsearch.DefaultMaxModelCalls - globalsearch.ReduceAttempts) / globalsearch.MapAttempts
	assert.LessOrEqual(t, items, workflow.InlineMaxBatches, "the default ceiling's most batches, rating batches and groups")
	most := workflow.InlineMaxBatches*globalsearch.MapAttempts + globalsearch.ReduceAttempts
	assert.Equal(t, 1202, most, "the ceiling docs/aws.md and docs/contract.md name")
}
