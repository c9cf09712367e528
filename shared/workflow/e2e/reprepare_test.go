package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestReprepareAfterIndexChange starts a query id that has completed again,
// under another execution name (a schedule or workflow that names its
// query), after the index changed, with every map call failing: the new
// run must fail, not complete from the first run's answers (docs/contract.md#query-ids).
func TestReprepareAfterIndexChange(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const batches = 2
	queryID := uniqueName("q-reprepare")
	namespace := uniqueName("ns-reprepare")
	e.loadIndex(t, namespace, batches)
	input := request(queryID, namespace)
	m := e.newStateMachine(t)

	first := newRun()
	e.lambda.register(queryID, first)
	arn := e.start(t, m, queryID, input)
	out := e.wait(t, m, arn)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
	res, err := e.runs.Result(ctx, queryID)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status)

	e.loadIndex(t, namespace, batches+1)
	second := newRun()
	second.model = failModel(modelError(), func(c modelCall) bool { return c.Function == "map" })
	e.lambda.register(queryID, second)
	// Another state machine (its own moto region, which runs one execution
	// at a time), as another schedule or workflow would start it.
	m2 := e.newStateMachine(t)
	arn2 := e.start(t, m2, uniqueName("exec-reprepare"), input)
	out2 := e.wait(t, m2, arn2)

	require.Equal(t, sfntypes.ExecutionStatusFailed, out2.Status, e.history(m2, arn2))
	assert.Equal(t, "AllBatchesFailedError", aws.ToString(out2.Error))
	res, err = e.runs.Result(ctx, queryID)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status, "result: %s", res.Error)
	assert.Equal(t, batches+1, res.FailedMapBatches)
	assert.Empty(t, res.SelectedMapAnswers)
	assert.Equal(t, 1, second.count("prepare"))
	// Every batch of the new plan was tried (twice, or more when the moto
	// Lambda client timed out under load and the Lambda-service retrier
	// invoked it again): the failure is this plan's, not a leftover.
	counts := second.batchCounts()
	require.Len(t, counts, batches+1, "map invocations per batch of the new plan")
	for index, n := range counts {
		assert.GreaterOrEqual(t, n, 2, fmt.Sprintf("attempts of batch %d of the new plan", index))
	}
}
