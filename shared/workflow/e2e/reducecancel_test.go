package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// TestReduceRoundsCancelledBetweenRounds cancels a tree run through the
// API while the start of its second round is held: the round, once let go,
// is refused before it writes (docs/contract.md#cancel), so the runs table
// holds what it held at the cancel, no reduce model call follows, and GET
// reads cancelled. As in TestCancelThroughTheAPI, moto keeps a stopped
// execution running until the state in flight returns, so the case checks
// that it ended, not the status moto gives it.
func TestReduceRoundsCancelledBetweenRounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	queryID := uniqueName("q-rounds-cancel")
	namespace := strings.ToLower(uniqueName("ns-rounds-cancel"))
	e.loadIndex(t, namespace, roundsBatches)

	gate, atRound := make(chan struct{}), make(chan struct{}, 1)
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(gate) }) })
	rn := newRun()
	rn.model = roundsModel(nil)
	rn.fault = func(inv invocation) *lambdaReply {
		if inv.Function == "reduce" && inv.Task == "round" && inv.N == 2 {
			atRound <- struct{}{}
			<-gate
		}
		return nil
	}
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	h := e.apiFor(m)
	body, err := json.Marshal(roundsRequest(queryID, namespace, "tree"))
	require.NoError(t, err)
	status, b := serve(t, h, http.MethodPost, "/namespaces/"+namespace+"/queries", string(body))
	require.Equal(t, http.StatusAccepted, status, b)
	path := "/namespaces/" + namespace + "/queries/" + queryID

	<-atRound // round 1's groups have answered
	status, b = serve(t, h, http.MethodDelete, path, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "cancelled", b["status"])
	before := e.sortedItems(t, queryID)
	rn.mu.Lock()
	callsBefore := rn.models[-1]
	rn.mu.Unlock()
	assert.Equal(t, 4, callsBefore, "round 1's four groups, one call each")

	release.Do(func() { close(gate) })
	arn := strings.Replace(m.ARN, ":stateMachine:", ":execution:", 1) + ":" + queryID
	out := e.waitFor(t, m, arn, roundsTimeout)
	assert.NotEqual(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
	rn.mu.Lock()
	assert.Contains(t, rn.errors["reduce"], "NotFoundError", "the held round was refused")
	assert.Equal(t, callsBefore, rn.models[-1], "no reduce call after the cancel")
	assert.Zero(t, rn.nth["reduce/group/2/0"], "no group of round 2 was invoked")
	rn.mu.Unlock()
	assert.Equal(t, before, e.sortedItems(t, queryID), "the refused round wrote nothing")
	status, b = serve(t, h, http.MethodGet, path, "")
	require.Equal(t, http.StatusOK, status, b)
	assert.Equal(t, "cancelled", b["status"])
	assert.Empty(t, b["answer"])
}

// TestReduceRoundsReplacedRunLateGroup: a tree run's group call is held in
// the model while the same request starts again (another execution, as a
// schedule or a repeated start would), which replaces the run; the new run
// completes. Let go, the old run's late group writes nothing the query's
// current run reads: the new run's group answers and its result stay as
// they were, and the old execution ends without a result of its own
// (docs/contract.md#query-ids).
func TestReduceRoundsReplacedRunLateGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The held call must answer before moto's own Lambda client gives up
	// (60 s), and the new run must finish meanwhile: the handler's deadline
	// is raised from the default for that.
	e.lambda.timeout = 50 * time.Second
	ctx := context.Background()
	queryID := uniqueName("q-rounds-replaced")
	namespace := strings.ToLower(uniqueName("ns-rounds-replaced"))
	e.loadIndex(t, namespace, roundsBatches)

	gate, held := make(chan struct{}), make(chan string, 1)
	var release, hold sync.Once
	t.Cleanup(func() { release.Do(func() { close(gate) }) })
	healthy := roundsModel(nil)
	rn := newRun()
	rn.model = func(c modelCall) modeltest.ConverseReply {
		first := false
		if c.Task == "group" {
			hold.Do(func() { first = true })
		}
		if first {
			held <- c.RunID
			<-gate
		}
		return healthy(c)
	}
	e.lambda.register(queryID, rn)
	in := roundsRequest(queryID, namespace, "tree")
	old := e.newStateMachine(t)
	oldARN := e.start(t, old, queryID, in)
	oldRun := <-held

	replacing := e.newStateMachine(t)
	arn := e.start(t, replacing, uniqueName("exec-rounds-replaced"), in)
	out := e.waitFor(t, replacing, arn, roundsTimeout)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(replacing, arn))
	res, err := e.runs.Result(ctx, queryID)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
	plan, err := e.runs.Plan(ctx, queryID)
	require.NoError(t, err)
	require.NotEqual(t, oldRun, plan.RunID, "the request started again is a new run")
	answers, err := e.runs.GroupAnswers(ctx, queryID, plan.RunID)
	require.NoError(t, err)

	release.Do(func() { close(gate) })
	outOld := e.waitFor(t, old, oldARN, roundsTimeout)
	assert.NotEqual(t, sfntypes.ExecutionStatusSucceeded, outOld.Status, "the replaced run cannot finish\n%s", e.history(old, oldARN))
	after, err := e.runs.GroupAnswers(ctx, queryID, plan.RunID)
	require.NoError(t, err)
	assert.Equal(t, answers, after, "the late group reached nothing the current run reads")
	again, err := e.runs.Result(ctx, queryID)
	require.NoError(t, err)
	assert.Equal(t, res.Status, again.Status, "the new run's result stands")
	assert.Equal(t, res.Answer, again.Answer)
	assert.Equal(t, res.Diagnostics.Reduce.ModelCalls, again.Diagnostics.Reduce.ModelCalls, "only the new run's reduce calls")
}
