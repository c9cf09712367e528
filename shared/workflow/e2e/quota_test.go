package e2e

import (
	"context"
	"strings"
	"testing"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestQuotaSizesTheMap: a deployment's model quota sizes the map
// concurrency of a request that names none (docs/contract.md#quota), and
// the Map runs exactly that many at once. 30 requests a minute at 10 s a
// call sustain 30 x 10 / 60 = 5 calls in flight, not the default 4. The 6
// batches take the larger of ceil(6 / 5) = 2 waves of 10 s = 20 s and the
// requests' 6 / 30 x 60 = 12 s, plus the reduce's 10 s: 30.
func TestQuotaSizesTheMap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.engine.Quota = globalsearch.Quota{RequestsPerMinute: 30}
	fiveWide := newBarrier(t, 5, 2*executionTimeout)
	queryID := uniqueName("q-quota")
	namespace := strings.ToLower(uniqueName("ns-quota"))
	e.loadIndex(t, namespace, 6)
	rn := newRun()
	rn.model = healthyModel
	rn.fault = func(inv invocation) *lambdaReply {
		if inv.Function == "map" {
			fiveWide.wait()
		}
		return nil
	}
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	arn := e.start(t, m, queryID, request(queryID, namespace))
	out := e.wait(t, m, arn)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, "execution %s\n%s", arn, e.history(m, arn))

	prepared := e.preparedOutput(t, m, arn)
	assert.Equal(t, []int{5, 30}, []int{prepared.MapConcurrency, prepared.ETASeconds}, "prepare's output")
	rn.mu.Lock()
	assert.True(t, fiveWide.opened(), "fewer than 5 map invocations were ever in flight at once")
	assert.Equal(t, 5, rn.maxFlight, "the quota's 5: exactly five map invocations in flight")
	rn.mu.Unlock()
	res, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, []int{5, 30}, []int{res.Diagnostics.MapConcurrency, res.Diagnostics.ETASeconds}, "the result")
}
