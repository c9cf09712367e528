package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

const query = "What are the main themes across the communities?"

// summaryText is a summary of about 500 estimated tokens, so that with
// mapBudget one summary fills one batch: the cases then choose their batch
// count by their summary count.
func summaryText(id string) string {
	line := "Community " + id + " reports steady growth in trade, schools and river transport. "
	return strings.Repeat(line, 2000/len(line)+1)
}

// mapBudget fits one summaryText in a Map prompt and not two (docs/contract.md#batching):
// the skeleton, one summary with its section header and some slack, plus
// the output reserve.
func mapBudget() int {
	skeleton := tokens.Estimate(globalsearch.DefaultPrompts().Map.Skeleton(query))
	one := tokens.Estimate(summaryText("c0"))
	return skeleton + one + one/2 + globalsearch.SpecDefaults.MapOutputReserve
}

// loadIndex writes n leaf summaries (c0..c{n-1}) into namespace.
func (e *env) loadIndex(t *testing.T, namespace string, n int) {
	t.Helper()
	var r globalsearch.Records
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: id, Level: 0, Title: "Community " + id, Summary: summaryText(id)})
	}
	require.NoError(t, e.index.ReplaceNamespace(context.Background(), namespace, r))
}

// request is the execution input of a case: a search request (docs/contract.md#request)
// without shuffling, so batch i holds summary ci.
func request(queryID, namespace string) map[string]any {
	r := map[string]any{
		"query": query, "namespace": namespace, "shuffle": false, "mapTokenBudget": mapBudget(),
	}
	if queryID != "" {
		r["queryId"] = queryID
	}
	return r
}

// report collects one line per case for the summary at the end.
type report struct {
	mu    sync.Mutex
	lines []string
}

func (r *report) add(t *testing.T, name string, status sfntypes.ExecutionStatus, res globalsearch.Status, rn *run, wall time.Duration) {
	rn.mu.Lock()
	line := fmt.Sprintf("%-28s execution=%-9s result=%-10s invokes prepare=%d map=%d reduce=%d batches=%s maxInFlight=%d modelCalls=%d wall=%s",
		name, status, res, rn.invokes["prepare"], rn.invokes["map"], rn.invokes["reduce"], formatCounts(rn.byBatch), rn.maxFlight, sum(rn.models), wall.Round(time.Millisecond))
	rn.mu.Unlock()
	t.Log(line)
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}

func (r *report) print(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sort.Strings(r.lines)
	t.Logf("summary of %d state machine cases:\n%s", len(r.lines), strings.Join(r.lines, "\n"))
}

func formatCounts(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d", k, m[k])
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// failModel returns a model script under which the map batches in fail
// answer with err on the invokes for which when is true, and everything
// else is healthy.
func failModel(reply modeltest.ConverseReply, when func(call modelCall) bool) func(modelCall) modeltest.ConverseReply {
	return func(call modelCall) modeltest.ConverseReply {
		if when(call) {
			return reply
		}
		return healthyModel(call)
	}
}

func mapBatch(i int) func(modelCall) bool {
	return func(c modelCall) bool { return c.Function == "map" && c.Batch == i }
}

func mapBatchOnce(i int) func(modelCall) bool {
	return func(c modelCall) bool { return c.Function == "map" && c.Batch == i && c.N == 1 }
}

func TestStateMachine(t *testing.T) {
	e := newEnv(t)
	rep := &report{}
	t.Cleanup(func() { rep.print(t) })
	// The suite's cases all start at once and queue for two cores (beside
	// the other suites), so a barrier's deadline, its failure path, must
	// outlast the queue, not only the execution.
	fourWide := newBarrier(t, 4, 2*executionTimeout)
	twoWide := newBarrier(t, 2, 2*executionTimeout)

	// Statuses the runs table held right after each reduce invocation of
	// the "reduce throttled then fails once" case.
	var interim struct {
		sync.Mutex
		statuses []string
	}
	cases := []struct {
		name      string
		summaries int
		// noQueryID leaves the request without a queryId: the execution
		// name becomes it ($$.Execution.Name, docs/contract.md#aws).
		noQueryID bool
		input     func(queryID, namespace string) map[string]any
		fault     func(inv invocation) *lambdaReply
		model     func(call modelCall) modeltest.ConverseReply
		after     func(inv invocation, errorType string)

		wantExecution sfntypes.ExecutionStatus
		wantError     string // the execution's error when it fails
		wantStatus    globalsearch.Status
		wantInvokes   map[string]int // by function
		wantBatches   map[int]int    // map invokes by batch index
		wantModel     map[int]int    // Converse requests by batch (-1 reduce); nil: not checked
		wantFailed    []int          // failed batch indexes in the result
		// wantTaskErrors counts the failed tasks of the execution's
		// history by error name; nil: none failed.
		wantTaskErrors map[string]int
		check          func(t *testing.T, e *env, queryID string, res globalsearch.Result)
	}{
		{
			name:      "all batches succeed",
			summaries: 6,
			// Every map invoke waits until four are in flight: the Map must
			// run MaxConcurrency iterations at once, not merely at most.
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "map" {
					fourWide.wait()
				}
				return nil
			},
			model:         healthyModel,
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusCompleted,
			wantInvokes:   map[string]int{"prepare": 1, "map": 6, "reduce": 1},
			wantBatches:   map[int]int{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1},
			check: func(t *testing.T, e *env, queryID string, res globalsearch.Result) {
				rn := e.lambda.lookup(queryID)
				rn.mu.Lock()
				defer rn.mu.Unlock()
				require.True(t, fourWide.opened(), "fewer than 4 map invocations were ever in flight at once")
				assert.Equal(t, 4, rn.maxFlight, "the default mapConcurrency 4: exactly four map invocations in flight")
				assert.Len(t, res.SelectedMapAnswers, 6)
				assert.Equal(t, "Synthesis of the selected answers.", res.Answer)
				// The reduce Lambda reports coverage from the runs table alone.
				assert.Equal(t, 6, res.Diagnostics.Coverage.CommunitiesSelected)
				assert.Equal(t, &globalsearch.MapAnswerCoverage{Useful: 6, ReachedReduce: 6}, res.Diagnostics.Coverage.MapAnswers)
			},
		},
		{
			// The request's mapConcurrency is the Map's MaxConcurrencyPath
			// (docs/contract.md#state-machine): two in flight, never the default four.
			name:      "request concurrency bounds the map",
			summaries: 6,
			input: func(queryID, namespace string) map[string]any {
				r := request(queryID, namespace)
				r["mapConcurrency"] = 2
				return r
			},
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "map" {
					twoWide.wait()
				}
				return nil
			},
			model:         healthyModel,
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusCompleted,
			wantInvokes:   map[string]int{"prepare": 1, "map": 6, "reduce": 1},
			wantBatches:   map[int]int{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1},
			check: func(t *testing.T, e *env, queryID string, res globalsearch.Result) {
				rn := e.lambda.lookup(queryID)
				rn.mu.Lock()
				defer rn.mu.Unlock()
				require.True(t, twoWide.opened(), "fewer than 2 map invocations were ever in flight at once")
				assert.Equal(t, 2, rn.maxFlight, "mapConcurrency 2: exactly two map invocations in flight")
			},
		},
		{
			name:           "one batch fails once",
			summaries:      3,
			model:          failModel(modelError(), mapBatchOnce(1)),
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusCompleted,
			wantInvokes:    map[string]int{"prepare": 1, "map": 4, "reduce": 1},
			wantBatches:    map[int]int{0: 1, 1: 2, 2: 1},
			wantModel:      map[int]int{-1: 1, 0: 1, 1: 2, 2: 1},
			wantTaskErrors: map[string]int{"ModelError": 1},
			check: func(t *testing.T, e *env, queryID string, _ globalsearch.Result) {
				plan, err := e.runs.Plan(context.Background(), queryID)
				require.NoError(t, err)
				answers, err := e.runs.MapAnswers(context.Background(), queryID, plan.RunID)
				require.NoError(t, err)
				require.Len(t, answers, 3)
				// attempt = $$.State.RetryCount + 1 reached the handler.
				assert.Equal(t, []int{1, 2, 1}, []int{answers[0].Attempts, answers[1].Attempts, answers[2].Attempts})
			},
		},
		{
			name:           "one batch fails twice",
			summaries:      3,
			model:          failModel(modelError(), mapBatch(1)),
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusPartial,
			wantInvokes:    map[string]int{"prepare": 1, "map": 4, "reduce": 1},
			wantBatches:    map[int]int{0: 1, 1: 2, 2: 1},
			wantFailed:     []int{1},
			wantTaskErrors: map[string]int{"ModelError": 2},
			check: func(t *testing.T, _ *env, _ string, res globalsearch.Result) {
				require.Len(t, res.MapErrors, 1)
				assert.Contains(t, res.MapErrors[0].Message, "ModelError", "the Catch passes the error name on to reduce")
				assert.Equal(t, []string{"c1"}, res.MapErrors[0].CommunityIDs)
				// The reduce Lambda compares the estimate with the model's
				// report from the runs table alone (docs/contract.md#usage):
				// the code points come through the plan's metadata read.
				d := res.Diagnostics
				require.Len(t, d.Batches, 3)
				var estimated int
				for i, b := range d.Batches {
					counted := tokens.Count{ASCII: b.ASCIICodePoints, NonASCII: b.NonASCIICodePoints}
					assert.Equal(t, b.EstimatedTokens, counted.Tokens(), "batch %d: the code points its estimate counts", i)
					if i == 1 {
						assert.Zero(t, b.ReportedInputTokens, "a failed batch has no report")
						continue
					}
					assert.Equal(t, 100, b.ReportedInputTokens, "batch %d: what the model reported", i)
					estimated += b.EstimatedTokens
				}
				m := d.Usage.Map
				assert.Equal(t, 2, m.Calls)
				assert.Equal(t, estimated, m.EstimatedInputTokens)
				assert.Equal(t, 200, m.ReportedInputTokens)
				assert.InDelta(t, 200/float64(estimated), m.Ratio, 1e-4)
				require.NotNil(t, m.WorstBatchIndex)
				assert.Contains(t, []int{0, 2}, *m.WorstBatchIndex)
				assert.Equal(t, globalsearch.StageEstimate{Calls: 1, EstimatedInputTokens: d.ReducePromptTokens, ReportedInputTokens: 100,
					Ratio: d.Usage.Reduce.Ratio}, d.Usage.Reduce)
				assert.Positive(t, d.Usage.SystemPrompt.ASCII)
			},
		},
		{
			name:      "every batch fails",
			summaries: 3,
			// One iteration at a time: moto 5.2 sets up a Retry's state
			// lazily without a lock, so two iterations failing at the same
			// instant can give one a third attempt (an emulator race; AWS
			// counts attempts per iteration).
			input: func(queryID, namespace string) map[string]any {
				r := request(queryID, namespace)
				r["mapConcurrency"] = 1
				return r
			},
			model:          failModel(modelError(), func(c modelCall) bool { return c.Function == "map" }),
			wantExecution:  sfntypes.ExecutionStatusFailed,
			wantError:      "AllBatchesFailedError",
			wantStatus:     globalsearch.StatusFailed,
			wantInvokes:    map[string]int{"prepare": 1, "map": 6, "reduce": 1},
			wantBatches:    map[int]int{0: 2, 1: 2, 2: 2},
			wantFailed:     []int{0, 1, 2},
			wantTaskErrors: map[string]int{"ModelError": 6, "AllBatchesFailedError": 1},
			check: func(t *testing.T, _ *env, _ string, res globalsearch.Result) {
				assert.Contains(t, res.Error, "every map batch failed")
			},
		},
		{
			name:           "model returns garbage",
			summaries:      2,
			model:          failModel(modelText("Sure! Here is what I found: nothing in JSON."), mapBatch(0)),
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusPartial,
			wantInvokes:    map[string]int{"prepare": 1, "map": 3, "reduce": 1},
			wantBatches:    map[int]int{0: 2, 1: 1},
			wantFailed:     []int{0},
			wantTaskErrors: map[string]int{"ModelOutputError": 2},
			check: func(t *testing.T, e *env, queryID string, res globalsearch.Result) {
				require.Len(t, res.MapErrors, 1)
				assert.Contains(t, res.MapErrors[0].Message, "ModelOutputError")
				assert.Equal(t, []string{"ModelOutputError", "ModelOutputError"}, e.lambda.lookup(queryID).errors["map"])
				// Every map call's tokens are counted, those of the two
				// whose output broke the rules too (docs/contract.md#failed-attempts).
				calls, per := 3, modelText("")
				assert.Equal(t, calls, res.Diagnostics.Map.ModelCalls)
				assert.Equal(t, calls*per.InputTokens, res.Diagnostics.Map.InputTokens)
				assert.Equal(t, calls*per.OutputTokens, res.Diagnostics.Map.OutputTokens)
			},
		},
		{
			name:      "lambda throttles",
			summaries: 3,
			// The Invoke API refuses the first prepare and the first try of
			// batch 2: the service-error retrier runs them again; the
			// handlers never saw the refused invokes.
			fault: func(inv invocation) *lambdaReply {
				if inv.N == 1 && (inv.Function == "prepare" || (inv.Function == "map" && inv.Batch == 2)) {
					return throttle()
				}
				return nil
			},
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusCompleted,
			wantInvokes:    map[string]int{"prepare": 2, "map": 4, "reduce": 1},
			wantBatches:    map[int]int{0: 1, 1: 1, 2: 2},
			wantModel:      map[int]int{-1: 1, 0: 1, 1: 1, 2: 1},
			wantTaskErrors: map[string]int{"Lambda.TooManyRequestsException": 2},
		},
		{
			// Batch 1's invocation is throttled four times (its reserved
			// concurrency full): more than the service-error retrier's
			// three, within the throttle retrier's six, so the batch
			// still runs and the result is complete, not partial.
			name:      "map throttled past the service retries",
			summaries: 2,
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "map" && inv.Batch == 1 && inv.N <= 4 {
					return throttle()
				}
				return nil
			},
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusCompleted,
			wantInvokes:    map[string]int{"prepare": 1, "map": 6, "reduce": 1},
			wantBatches:    map[int]int{0: 1, 1: 5},
			wantModel:      map[int]int{-1: 1, 0: 1, 1: 1},
			wantTaskErrors: map[string]int{"Lambda.TooManyRequestsException": 4},
		},
		{
			name:      "bedrock throttles once",
			summaries: 2,
			// The SDK retries the throttle inside one invocation: one
			// attempt to the state machine, two requests to Bedrock.
			model: failModel(modelThrottle(), func(c modelCall) bool {
				return c.Function == "map" && c.Batch == 0 && c.Try == 1
			}),
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusCompleted,
			wantInvokes:   map[string]int{"prepare": 1, "map": 2, "reduce": 1},
			wantBatches:   map[int]int{0: 1, 1: 1},
			wantModel:     map[int]int{-1: 1, 0: 2, 1: 1},
		},
		{
			name:           "reduce fails once",
			summaries:      2,
			model:          failModel(modelError(), func(c modelCall) bool { return c.Function == "reduce" && c.N == 1 }),
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusCompleted,
			wantInvokes:    map[string]int{"prepare": 1, "map": 2, "reduce": 2},
			wantBatches:    map[int]int{0: 1, 1: 1},
			wantModel:      map[int]int{-1: 2, 0: 1, 1: 1},
			wantTaskErrors: map[string]int{"ModelError": 1},
		},
		{
			name:          "reduce fails twice",
			summaries:     2,
			model:         failModel(modelText("no json here"), func(c modelCall) bool { return c.Function == "reduce" }),
			wantExecution: sfntypes.ExecutionStatusFailed,
			wantError:     "ModelOutputError",
			wantStatus:    globalsearch.StatusFailed,
			// Two attempts, then the Catch's RecordReduceFailure invoke.
			wantInvokes:    map[string]int{"prepare": 1, "map": 2, "reduce": 3},
			wantBatches:    map[int]int{0: 1, 1: 1},
			wantTaskErrors: map[string]int{"ModelOutputError": 2},
		},
		{
			// $$.State.RetryCount counts every retry of the state, the
			// Lambda service retrier's too, so the invoke after a throttle
			// is attempt 2 though it is reduce's first model call.
			name:      "reduce throttled then fails once",
			summaries: 1,
			fault: func(inv invocation) *lambdaReply {
				if inv.Function == "reduce" && inv.N == 1 {
					return throttle()
				}
				return nil
			},
			model: failModel(modelError(), func(c modelCall) bool { return c.Function == "reduce" && c.N == 2 }),
			after: func(inv invocation, errorType string) {
				if inv.Function != "reduce" {
					return
				}
				status := "none"
				if r, err := e.runs.Result(context.Background(), inv.QueryID); err == nil {
					status = string(r.Status)
				}
				interim.Lock()
				interim.statuses = append(interim.statuses, fmt.Sprintf("invoke %d (%s): %s", inv.N, errorType, status))
				interim.Unlock()
			},
			wantExecution:  sfntypes.ExecutionStatusSucceeded,
			wantStatus:     globalsearch.StatusCompleted,
			wantInvokes:    map[string]int{"prepare": 1, "map": 1, "reduce": 3},
			wantBatches:    map[int]int{0: 1},
			wantModel:      map[int]int{-1: 2, 0: 1},
			wantTaskErrors: map[string]int{"Lambda.TooManyRequestsException": 1, "ModelError": 1},
			check: func(t *testing.T, _ *env, _ string, res globalsearch.Result) {
				interim.Lock()
				defer interim.Unlock()
				want := []string{"invoke 2 (ModelError): none", "invoke 3 (): completed"}
				assert.Equal(t, want, interim.statuses, "the runs table must not say failed while the state machine still retries reduce")
				assert.Equal(t, 2, res.Diagnostics.Reduce.ModelCalls, "reduce made two model calls")
			},
		},
		{
			name:          "empty namespace",
			summaries:     0,
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusNoResults,
			wantInvokes:   map[string]int{"prepare": 1, "map": 0, "reduce": 1},
			wantBatches:   map[int]int{},
			wantModel:     map[int]int{},
			check: func(t *testing.T, _ *env, _ string, res globalsearch.Result) {
				assert.Equal(t, globalsearch.NoResultsAnswer, res.Answer)
				assert.Zero(t, res.Diagnostics.ModelCalls)
			},
		},
		{
			name:      "invalid input",
			summaries: 1,
			input: func(queryID, namespace string) map[string]any {
				r := request(queryID, namespace)
				r["mapTokenBudget"] = 10 // below the output reserve
				return r
			},
			wantExecution:  sfntypes.ExecutionStatusFailed,
			wantError:      "InvalidInputError",
			wantStatus:     globalsearch.StatusFailed,
			wantInvokes:    map[string]int{"prepare": 1, "map": 0, "reduce": 0},
			wantBatches:    map[int]int{},
			wantModel:      map[int]int{},
			wantTaskErrors: map[string]int{"InvalidInputError": 1},
		},
		{
			// docs/contract.md#auto-level: the request's level and ceiling
			// pass the API's edge into prepare, and the reduce Lambda's
			// result records the level used from the runs table.
			name:      "communityLevel auto under its ceiling",
			summaries: 3,
			input: func(queryID, namespace string) map[string]any {
				r := request(queryID, namespace)
				r["communityLevel"], r["maxMapInputTokens"] = "auto", 1_000_000
				return r
			},
			model:         healthyModel,
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusCompleted,
			wantInvokes:   map[string]int{"prepare": 1, "map": 3, "reduce": 1},
			wantBatches:   map[int]int{0: 1, 1: 1, 2: 1},
			check: func(t *testing.T, _ *env, _ string, res globalsearch.Result) {
				assert.Equal(t, globalsearch.AutoLevel, res.CommunityLevel)
				require.NotNil(t, res.Diagnostics.AutoLevel)
				assert.Equal(t, globalsearch.LeafLevel, res.Diagnostics.AutoLevel.LevelUsed)
				assert.Equal(t, 1_000_000, res.Diagnostics.AutoLevel.MaxMapInputTokens)
			},
		},
		{
			name:      "communityLevel auto with nothing that fits",
			summaries: 1,
			input: func(queryID, namespace string) map[string]any {
				r := request(queryID, namespace)
				r["communityLevel"], r["maxMapInputTokens"] = "auto", 1
				return r
			},
			wantExecution:  sfntypes.ExecutionStatusFailed,
			wantError:      "InvalidInputError",
			wantStatus:     globalsearch.StatusFailed,
			wantInvokes:    map[string]int{"prepare": 1, "map": 0, "reduce": 0},
			wantBatches:    map[int]int{},
			wantModel:      map[int]int{},
			wantTaskErrors: map[string]int{"InvalidInputError": 1},
			check: func(t *testing.T, _ *env, _ string, res globalsearch.Result) {
				assert.Contains(t, res.Error, "raise maxMapInputTokens to at least")
			},
		},
		{
			// docs/contract.md#model-call-ceiling: 3 batches may make 2 x 3 + 2 = 8 model calls; a
			// request that allows 7 is refused by prepare before any map
			// invocation, and the runs table says why.
			name:      "model-call ceiling refuses the plan",
			summaries: 3,
			input: func(queryID, namespace string) map[string]any {
				r := request(queryID, namespace)
				r["maxModelCalls"] = globalsearch.MostModelCalls(3) - 1
				return r
			},
			wantExecution:  sfntypes.ExecutionStatusFailed,
			wantError:      "PlanTooLargeError",
			wantStatus:     globalsearch.StatusFailed,
			wantInvokes:    map[string]int{"prepare": 1, "map": 0, "reduce": 0},
			wantBatches:    map[int]int{},
			wantModel:      map[int]int{},
			wantTaskErrors: map[string]int{"PlanTooLargeError": 1},
			check: func(t *testing.T, e *env, queryID string, res globalsearch.Result) {
				assert.Contains(t, res.Error, "the plan needs 3 map batches, so up to 8 model calls")
				assert.Contains(t, res.Error, "at most 7: raise maxModelCalls")
				assert.Zero(t, res.Diagnostics.ModelCalls)
				status, body := getQuery(t, e, res.Namespace, queryID)
				assert.Equal(t, http.StatusOK, status)
				assert.Equal(t, "failed", body["status"])
				assert.Equal(t, res.Error, body["error"])
			},
		},
		{
			name:          "execution name is the query id",
			summaries:     1,
			noQueryID:     true,
			wantExecution: sfntypes.ExecutionStatusSucceeded,
			wantStatus:    globalsearch.StatusCompleted,
			wantInvokes:   map[string]int{"prepare": 1, "map": 1, "reduce": 1},
			wantBatches:   map[int]int{0: 1},
		},
	}
	t.Run("repeated start", func(t *testing.T) {
		t.Parallel()
		testRepeatedStart(t, e, rep)
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Safe: every case has its own region's backend in moto (see
			// regions), its own namespace and query id, and the fakes
			// keep their counts per query id.
			t.Parallel()
			start := time.Now()
			slug := strings.ReplaceAll(tc.name, " ", "-")
			queryID := uniqueName("q-" + slug)
			namespace := strings.ToLower(uniqueName("ns-" + slug))
			if tc.summaries > 0 {
				e.loadIndex(t, namespace, tc.summaries)
			}
			rn := newRun()
			rn.fault, rn.model, rn.after = tc.fault, tc.model, tc.after
			e.lambda.register(queryID, rn)

			requestID := queryID
			if tc.noQueryID {
				requestID = ""
			}
			input := request(requestID, namespace)
			if tc.input != nil {
				input = tc.input(requestID, namespace)
			}
			m := e.newStateMachine(t)
			arn := e.start(t, m, queryID, input)
			out := e.wait(t, m, arn)
			wall := time.Since(start)

			res, resErr := e.runs.Result(context.Background(), queryID)
			rep.add(t, tc.name, out.Status, res.Status, rn, wall)

			require.Equal(t, tc.wantExecution, out.Status, "execution %s\n%s", arn, e.history(m, arn))
			if tc.wantError != "" {
				assert.Equal(t, tc.wantError, aws.ToString(out.Error), "cause: %s", aws.ToString(out.Cause))
			}
			require.NoError(t, resErr, "the runs table has a result")
			assert.Equal(t, tc.wantStatus, res.Status, "result error: %s", res.Error)
			assert.Equal(t, queryID, res.QueryID)

			for fn, want := range tc.wantInvokes {
				assert.Equal(t, want, rn.count(fn), "invocations of %s", fn)
			}
			assert.Equal(t, tc.wantBatches, rn.batchCounts(), "map invocations by batch index")
			if tc.wantModel != nil {
				rn.mu.Lock()
				assert.Equal(t, tc.wantModel, rn.models, "Converse requests by batch (-1: reduce)")
				rn.mu.Unlock()
			}
			if tc.wantStatus != globalsearch.StatusFailed || tc.wantFailed != nil {
				var failed []int
				for _, f := range res.MapErrors {
					failed = append(failed, f.BatchIndex)
				}
				assert.Equal(t, tc.wantFailed, failed, "failed batches")
				assert.Equal(t, len(tc.wantFailed), res.FailedMapBatches)
			}
			if tc.wantExecution == sfntypes.ExecutionStatusSucceeded {
				var output struct {
					QueryID string              `json:"queryId"`
					Status  globalsearch.Status `json:"status"`
				}
				require.NoError(t, json.Unmarshal([]byte(aws.ToString(out.Output)), &output))
				assert.Equal(t, queryID, output.QueryID)
				assert.Equal(t, tc.wantStatus, output.Status, "the execution's output agrees with the runs table")
			}
			wantTaskErrors := tc.wantTaskErrors
			if wantTaskErrors == nil {
				wantTaskErrors = map[string]int{}
			}
			assert.Equal(t, wantTaskErrors, e.taskErrors(t, m, arn), "failed tasks by error name")
			if tc.check != nil {
				tc.check(t, e, queryID, res)
			}
		})
	}
}

// testRepeatedStart starts the same query id again, as a retried API call or
// a second schedule would (docs/contract.md#idempotency): the same execution name
// while it runs is the same execution; after it ends, Step Functions refuses
// the name; a new execution of the same query id overwrites the runs-table
// items instead of adding any.
func testRepeatedStart(t *testing.T, e *env, rep *report) {
	start := time.Now()
	const batches = 2
	queryID := uniqueName("q-repeated")
	namespace := uniqueName("ns-repeated")
	e.loadIndex(t, namespace, batches)
	rn := newRun()
	// The model answers no map call until the second StartExecution is
	// done, so that start finds the first execution still running: it
	// cannot finish without its map answers.
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open) // a failed assertion must not leave the model waiting
	rn.model = func(call modelCall) modeltest.ConverseReply {
		<-release
		return healthyModel(call)
	}
	e.lambda.register(queryID, rn)
	input := request(queryID, namespace)

	m := e.newStateMachine(t)
	arn := e.start(t, m, queryID, input)
	again := e.start(t, m, queryID, input)
	status, err := e.sfn.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)}, m.in)
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusRunning, status.Status, "the first execution is still running")
	open()
	assert.Equal(t, arn, again, "StartExecution with a running execution's name and input is that execution")
	out := e.wait(t, m, arn)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
	first, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	items := e.runItems(t, queryID)

	_, err = e.startExecution(m, queryID, input)
	var exists *sfntypes.ExecutionAlreadyExists
	assert.ErrorAs(t, err, &exists, "a finished execution's name cannot start again")

	// Another state machine, as another schedule or workflow would start
	// it: same query id, same request.
	m2 := e.newStateMachine(t)
	arn2 := e.start(t, m2, queryID, input)
	out2 := e.wait(t, m2, arn2)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, out2.Status, e.history(m2, arn2))
	second, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	rep.add(t, "repeated start", out2.Status, second.Status, rn, time.Since(start))

	// Answers and the reduce count are keyed by run
	// (docs/contract.md#query-ids); the second run deletes the first run's.
	// The batches are in the payload bucket (docs/contract.md#payloads-bucket).
	want := []string{"answer#<run>#000000", "answer#<run>#000001", "plan", "reduce-calls#<run>", "request", "result"}
	firstItems, firstRuns := withoutRunIDs(items)
	assert.Equal(t, want, firstItems, "one item per key after the first run")
	secondItems, secondRuns := withoutRunIDs(e.runItems(t, queryID))
	assert.Equal(t, want, secondItems, "the second run replaced the first's items, it added nothing")
	assert.Len(t, firstRuns, 1)
	assert.Len(t, secondRuns, 1)
	assert.NotEqual(t, firstRuns, secondRuns, "each start is a new run")
	assert.Equal(t, globalsearch.StatusCompleted, second.Status)
	assert.Equal(t, first.Diagnostics.ShuffleSeed, second.Diagnostics.ShuffleSeed, "the stored request wins: same seed, same plan")
	assert.Equal(t, first.Diagnostics.Batches, second.Diagnostics.Batches)
	assert.Equal(t, 2, rn.count("prepare"))
	assert.Equal(t, 2*batches, rn.count("map"))
	assert.Equal(t, 2, rn.count("reduce"))
}

// runIDInKey is the run id inside a batch, answer or reduce-count sort key.
var runIDInKey = regexp.MustCompile(`^(batch#|answer#|reduce-calls#)([0-9a-f]+)`)

// withoutRunIDs returns the sort keys, sorted, with the run id in each
// replaced by <run>, and the run ids seen.
func withoutRunIDs(sks []string) ([]string, map[string]bool) {
	runs := map[string]bool{}
	out := make([]string, len(sks))
	for i, sk := range sks {
		if m := runIDInKey.FindStringSubmatch(sk); m != nil {
			runs[m[2]] = true
		}
		out[i] = runIDInKey.ReplaceAllString(sk, "${1}<run>")
	}
	sort.Strings(out)
	return out, runs
}
