package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
	"github.com/graphrag-global/graphrag-global/statemachine"
)

// TestDistributedMap runs the Distributed Map path (docs/contract.md#state-machine) with the
// inline budget lowered to 2 batches, so a 4-batch plan goes distributed:
// each batch a child execution, failures recorded in the runs table by the
// state machine and read back by reduce, the request's concurrency
// bounding the map invocations in flight.
func TestDistributedMap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.handlers.InlineMaxBatches = 2
	threeWide := newBarrier(t, 3, 2*executionTimeout)
	const batches = 4
	cases := []struct {
		name          string
		concurrency   int // the request's mapConcurrency; 0: the default
		fault         func(inv invocation) *lambdaReply
		model         func(call modelCall) modeltest.ConverseReply
		wantExecution sfntypes.ExecutionStatus
		wantError     string
		wantStatus    globalsearch.Status
		wantBatches   map[int]int
		wantFailed    map[int]string // failed batch -> its error name
		check         func(t *testing.T, rn *run)
	}{
		{
			// Every map invoke waits until three are in flight: the request's
			// mapConcurrency 3 is the Distributed Map's MaxConcurrencyPath.
			name:        "all batches succeed",
			concurrency: 3,
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "map" {
					threeWide.wait()
				}
				return nil
			},
			model:         healthyModel,
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusCompleted,
			wantBatches:   map[int]int{0: 1, 1: 1, 2: 1, 3: 1},
			wantFailed:    map[int]string{},
			check: func(t *testing.T, rn *run) {
				rn.mu.Lock()
				defer rn.mu.Unlock()
				require.True(t, threeWide.opened(), "fewer than 3 map invocations were ever in flight at once")
				assert.Equal(t, 3, rn.maxFlight, "mapConcurrency 3: exactly three map invocations in flight")
			},
		},
		{
			name:          "one batch fails twice",
			model:         failModel(modelError(), mapBatch(2)),
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusPartial,
			wantBatches:   map[int]int{0: 1, 1: 1, 2: 2, 3: 1},
			wantFailed:    map[int]string{2: "ModelError"},
		},
		{
			name: "every batch fails",
			// One child at a time: moto 5.2 gives a retrier its state key
			// lazily and without a lock (EvalComponent.heap_key), so
			// batches failing at the same instant can race for it and one
			// may get a third attempt.
			concurrency:   1,
			model:         failModel(modelError(), func(c modelCall) bool { return c.Function == "map" }),
			wantExecution: sfntypes.ExecutionStatusFailed,
			wantError:     "AllBatchesFailedError",
			wantStatus:    globalsearch.StatusFailed,
			wantBatches:   map[int]int{0: 2, 1: 2, 2: 2, 3: 2},
			wantFailed:    map[int]string{0: "ModelError", 1: "ModelError", 2: "ModelError", 3: "ModelError"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			slug := strings.ReplaceAll(tc.name, " ", "-")
			queryID := uniqueName("q-dist-" + slug)
			namespace := strings.ToLower(uniqueName("ns-dist-" + slug))
			e.loadIndex(t, namespace, batches)
			rn := newRun()
			rn.fault, rn.model = tc.fault, tc.model
			e.lambda.register(queryID, rn)
			input := request(queryID, namespace)
			if tc.concurrency > 0 {
				input["mapConcurrency"] = tc.concurrency
			}
			m := e.newStateMachine(t)
			arn := e.start(t, m, queryID, input)
			out := e.wait(t, m, arn)

			require.Equal(t, tc.wantExecution, out.Status, "execution %s\n%s", arn, e.history(m, arn))
			if tc.wantError != "" {
				assert.Equal(t, tc.wantError, aws.ToString(out.Error), "cause: %s", aws.ToString(out.Cause))
			}
			assert.Contains(t, e.history(m, arn), "MapRunStarted", "the plan ran in the Distributed Map")
			// Its items came from the payload bucket (docs/contract.md#payloads-bucket):
			// prepare's output names the object and lists no index.
			prepared := e.preparedOutput(t, m, arn)
			assert.Nil(t, prepared.BatchIndexes)
			assert.True(t, strings.HasPrefix(prepared.ItemsKey, store.PayloadPrefix+queryID+"/"+prepared.RunID+"/"), prepared.ItemsKey)
			// The batches' events are in their child executions: the parent's
			// history is what the states outside the Map write.
			assert.LessOrEqual(t, len(e.events(t, m, arn)), statemachine.EventsOutsideMap(), "the parent's history")
			res, err := e.runs.Result(context.Background(), queryID)
			require.NoError(t, err, "the runs table has a result")
			assert.Equal(t, tc.wantStatus, res.Status, "result error: %s", res.Error)
			assert.Equal(t, batches, res.Diagnostics.BatchCount)
			assert.Equal(t, tc.wantBatches, rn.batchCounts(), "map invocations by batch index")
			assert.Equal(t, 1, rn.count("prepare"))
			assert.Equal(t, 1, rn.count("reduce"), "reduce read the failures itself: one attempt")

			failed := map[int]string{}
			for _, f := range res.MapErrors {
				failed[f.BatchIndex] = f.Message
			}
			require.Len(t, failed, len(tc.wantFailed), "failed batches")
			for i, name := range tc.wantFailed {
				assert.Contains(t, failed[i], "last with "+name, "batch %d", i)
			}
			assert.Equal(t, len(tc.wantFailed), res.FailedMapBatches)

			// The failures are the state machine's own records, one per
			// failed batch of this run, expiring with the run.
			plan, err := e.runs.Plan(context.Background(), queryID)
			require.NoError(t, err)
			recorded, err := e.runs.MapFailures(context.Background(), queryID, plan.RunID)
			require.NoError(t, err)
			assert.Equal(t, tc.wantFailed, recorded)
			records := 0
			for _, sk := range e.runItems(t, queryID) {
				if strings.HasPrefix(sk, "map-failure#") {
					records++
				}
			}
			assert.Equal(t, len(tc.wantFailed), records, "one failure item per failed batch")

			if tc.wantExecution == sfntypes.ExecutionStatusSucceeded {
				var output workflow.ReduceOutput
				require.NoError(t, json.Unmarshal([]byte(aws.ToString(out.Output)), &output))
				assert.Equal(t, tc.wantStatus, output.Status, "the execution's output agrees with the runs table")
			}
			if tc.check != nil {
				tc.check(t, rn)
			}
		})
	}
}
