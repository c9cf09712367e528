// Package workflow is the Step Functions edge of the search: the task
// payloads the state machine (statemachine/globalsearch.asl.json) passes,
// the prepare, map and reduce Lambda handlers built on a
// *globalsearch.Engine, and the named error types the ASL's Retry and Catch
// match. The handlers only decode, call one Engine step and translate
// errors: the search rules live in globalsearch, so the in-process run and
// the deployed workflow cannot drift apart.
//
// Payloads stay small (docs/contract.md#payloads): states carry ids, indexes and counts; batch
// text lives in the payload bucket, answers and results in the runs table.
package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The history budget of the inline Map (docs/contract.md#plan-limits), in events. An
// execution's history holds at most HistoryLimit events. A map iteration
// whose two attempts both fail and are caught costs
// HistoryEventsPerFailedBatch (iteration started and succeeded, task
// entered and exited, two scheduled/started/failed triples, the catch's Pass
// entered and exited; a success costs 7), and every Lambda-service or
// throttle retry of an invoke adds HistoryEventsPerLambdaRetry (scheduled,
// started, failed). shared/workflow/e2e counts both from an execution's
// history. MapLambdaRetries is the most such retries one map task makes:
// the service-error retrier's 3 and the throttle retrier's 6
// (statemachine's TestHistoryBudget reads them from the ASL).
const (
	HistoryLimit                = 25_000
	HistoryEventsPerFailedBatch = 12
	HistoryEventsPerLambdaRetry = 3
	MapLambdaRetries            = 9
)

// InlineMaxBatches is the largest plan the inline Map runs (docs/contract.md#aws),
// the domain's figure (globalsearch.MapMode decides by it). Its
// worst case is every batch failing twice after every retry its task
// allows for Lambda-service errors and throttles: 600 x (12 + 9 x 3) =
// 23,400 events, which leaves 1,600 for the states outside the Map (about
// 130 even when every one of them retries and the failure is recorded) and
// a dynamic selection's passes through its loop (MaxSelectionRounds; its
// rating batches share these 600 with an inline map); statemachine_test.go
// counts them from the ASL. It also keeps the Map
// state's output (about 40 bytes per item) far below 256 KiB.
const InlineMaxBatches = globalsearch.InlineMaxBatches

// DefaultMaxBatches is the largest plan a deployment runs when it sets no
// other (template parameter MaxBatches; docs/contract.md#state-machine): plans past
// InlineMaxBatches run in the Distributed Map, whose items prepare writes
// to the payload bucket (MapItems), so no state holds them.
// MaxBatchesLimit is the most the runs table keys (six-digit batch
// indexes: shared/store refuses a larger plan as too large).
const (
	DefaultMaxBatches = globalsearch.DefaultMaxBatches
	MaxBatchesLimit   = 1_000_000
)

// MapItems writes the items of a Distributed Map, the batch indexes 0 to
// batches-1 of a run, where its ItemReader reads them, and returns the key
// prepare's output names (docs/contract.md#payloads-bucket).
type MapItems interface {
	PutMapItems(ctx context.Context, queryID, runID string, batches int) (string, error)
}

// The ways the state machine runs a plan's map batches (prepare's output
// names one; the ASL's MapMode Choice reads it): the domain's two
// (globalsearch.MapMode), and a dynamic selection still rating.
const (
	ModeInline      = globalsearch.ModeInline
	ModeDistributed = globalsearch.ModeDistributed
	// ModeSelecting is a dynamic selection still rating: the state
	// machine runs the round's rating batches (RateCommunities), then
	// asks prepare for the next step (SelectNext).
	ModeSelecting = "selecting"
)

// MapAttempts is what the state machine gives one batch: the first attempt
// and one Retry (MaxAttempts 1), docs/contract.md#map-calls.
const MapAttempts = globalsearch.MapAttempts

// RecordedFailures reads the map failures the Distributed Map recorded
// in the runs table (RecordBatchFailure in the ASL): the error name of
// each failed batch of a run, by batch index.
type RecordedFailures interface {
	MapFailures(ctx context.Context, queryID, runID string) (map[int]string, error)
}

// Handlers are the three task handlers over one Engine.
type Handlers struct {
	Engine   *globalsearch.Engine
	Defaults globalsearch.Defaults
	// InlineMaxBatches is the largest plan prepare sends to the inline
	// Map; 0 means InlineMaxBatches (tests lower it).
	InlineMaxBatches int
	// RunsTTL is how long the runs table keeps a run's items (prepare's
	// ExpiresAt); 0 means globalsearch.DefaultRunsTTL.
	RunsTTL time.Duration
	// Failures reads what a Distributed Map recorded (reduce only).
	Failures RecordedFailures
	// Items writes a Distributed Map's items (prepare only).
	Items MapItems
	// Rounds runs a reduce in rounds' steps (reduce only); nil means
	// Engine's.
	Rounds ReduceSteps
}

// Prepare validates the request, records it, plans the run and returns its
// batch indexes and run id (Engine.Prepare: a query id names one request,
// and each prepare starts a clean run). A request that cannot run (invalid
// input, a corrupt index, a plan too large) is saved as a failed result
// before the named error is returned, so the runs table says failed before
// the execution does; a request whose query id names another request saves
// nothing. A dynamic selection's prepare answers its first rating round
// instead of batches, and the same function, with task "select", ends each
// round (docs/contract.md#selection-steps).
func (h *Handlers) Prepare(ctx context.Context, in PrepareInput) (PrepareOutput, error) {
	switch {
	case in.Task == TaskSelect:
		return h.selectNext(ctx, in)
	case in.Task != "":
		return PrepareOutput{}, &InvalidInputError{fmt.Sprintf("prepare task input: task %q is not %q", in.Task, TaskSelect)}
	case in.QueryID != "" || in.RunID != "" || in.Round != 0:
		return PrepareOutput{}, &InvalidInputError{`prepare task input: queryId, runId and round belong to task "select"; a search's query id is in its request`}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	p, err := globalsearch.ParseRequestWithID(in.Request, h.Defaults, in.ExecutionName)
	if err != nil {
		h.failUnparsed(ctx, in, err)
		return PrepareOutput{}, Named(err)
	}
	out, err := h.Engine.PrepareAs(ctx, p, in.ExecutionName)
	if err != nil {
		return PrepareOutput{}, handlerError(ctx, err)
	}
	return h.output(ctx, out, reduceModeOf(p))
}

// output is what the state machine needs of a prepared run: the next
// rating round of a dynamic selection, or the plan's batches in the mode
// the history budget allows and the request's reduce mode
// (docs/contract.md#state-machine).
func (h *Handlers) output(ctx context.Context, out globalsearch.PreparedRun, reduceMode string) (PrepareOutput, error) {
	res := PrepareOutput{QueryID: out.QueryID, RunID: out.RunID, BatchCount: out.BatchCount,
		MapConcurrency: out.MapConcurrency, ETASeconds: out.ETASeconds}
	if out.Round > 0 {
		res.Mode, res.Round, res.RatingBatchIndexes = ModeSelecting, out.Round, indexes(out.RatingBatches)
		return res, nil
	}
	res.ReduceMode = reduceMode
	// A tree run's worst-case groups are inline Map iterations of the
	// same history, as a selection's rating batches are.
	res.Mode = globalsearch.MapMode(out.BatchCount, out.RatingBatches+out.ReduceGroups, h.InlineMaxBatches)
	if res.Mode == ModeInline {
		res.BatchIndexes = indexes(out.BatchCount)
		return res, nil
	}
	ttl := h.RunsTTL
	if ttl <= 0 {
		ttl = globalsearch.DefaultRunsTTL
	}
	res.ExpiresAt = time.Now().Add(ttl).Unix()
	if h.Items == nil {
		return PrepareOutput{}, &InternalError{"this prepare function cannot write a Distributed Map's items"}
	}
	var err error
	if res.ItemsKey, err = h.Items.PutMapItems(ctx, out.QueryID, out.RunID, out.BatchCount); err != nil {
		return PrepareOutput{}, handlerError(ctx, err)
	}
	return res, nil
}

// indexes is 0 to n-1.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Map makes exactly one attempt at one batch (docs/contract.md#map-calls): the second is the
// state machine's Retry.
func (h *Handlers) Map(ctx context.Context, in MapInput) (MapOutput, error) {
	switch {
	case in.Task == TaskRate:
		return h.rate(ctx, in)
	case in.Task != "":
		return MapOutput{}, &InvalidInputError{fmt.Sprintf("map task input: task %q is not %q", in.Task, TaskRate)}
	case in.Round != 0:
		return MapOutput{}, &InvalidInputError{`map task input: round belongs to task "rate"`}
	}
	if in.QueryID == "" || in.BatchIndex < 0 {
		return MapOutput{}, &InvalidInputError{"map input needs a queryId and a batchIndex >= 0"}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	a, err := h.Engine.MapBatch(ctx, in.QueryID, in.RunID, in.BatchIndex, max(in.Attempt, 1))
	if err != nil {
		return MapOutput{}, handlerError(ctx, err)
	}
	return MapOutput{BatchIndex: a.BatchIndex, Usefulness: a.Usefulness}, nil
}

// Reduce makes one attempt at reduce with the failed batches the Map state
// reported; the second attempt is the state machine's Retry. Engine.Reduce
// saves a failed result itself only when every batch failed. When the
// Retry is spent, the state machine's Catch invokes this function again
// with the caught error in Failure, and the run is recorded as failed:
// deciding "last attempt" here would need $$.State.RetryCount, which also
// counts Lambda-service retries that never reached the handler.
//
// With a task it is instead a step of a reduce in rounds
// (docs/contract.md#reduce-rounds): the start of a round (task "round") or
// one attempt at one group (task "group").
func (h *Handlers) Reduce(ctx context.Context, in ReduceInput) (ReduceOutput, error) {
	switch {
	case in.Task != "":
		return h.reduceTask(ctx, in)
	case in.Round != 0 || in.GroupIndex != 0 || in.Attempt != 0:
		return ReduceOutput{}, &InvalidInputError{`reduce task input: round, groupIndex and attempt belong to task "group"`}
	case in.Execution != nil:
		return ReduceOutput{}, &InvalidInputError{`reduce task input: execution belongs to task "stopped"`}
	case in.QueryID == "":
		return ReduceOutput{}, &InvalidInputError{"reduce input needs a queryId"}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	failures, err := h.mapFailures(ctx, in)
	if err != nil {
		return ReduceOutput{}, handlerError(ctx, err)
	}
	if in.Failure != nil {
		cause := errors.New(in.Failure.message())
		// FailReduce returns cause itself once the failed result is saved.
		res, err := h.Engine.FailReduce(ctx, in.QueryID, in.RunID, failures, cause)
		if err != cause {
			return ReduceOutput{}, handlerError(ctx, err)
		}
		return ReduceOutput{QueryID: in.QueryID, Status: res.Status}, nil
	}
	res, err := h.Engine.Reduce(ctx, in.QueryID, in.RunID, failures)
	if err != nil {
		return ReduceOutput{}, handlerError(ctx, err)
	}
	return ReduceOutput{QueryID: res.QueryID, Status: res.Status}, nil
}

// mapFailures are the failed batches of the run: those the inline Map
// reported in MapResults, or those the Distributed Map recorded in the runs
// table.
func (h *Handlers) mapFailures(ctx context.Context, in ReduceInput) ([]globalsearch.BatchFailure, error) {
	failure := func(index int, errName string) globalsearch.BatchFailure {
		return globalsearch.BatchFailure{
			BatchIndex: index,
			Message:    fmt.Sprintf("map batch failed %d times, last with %s (the map function's log has each attempt's message)", MapAttempts, errName),
			Attempts:   MapAttempts,
		}
	}
	var failures []globalsearch.BatchFailure
	switch in.Mode {
	case "", ModeInline:
		for _, r := range in.MapResults {
			if r.Failed {
				failures = append(failures, failure(r.BatchIndex, r.Error))
			}
		}
	case ModeDistributed:
		if in.RunID == "" || len(in.MapResults) > 0 {
			return nil, &InvalidInputError{"a distributed reduce needs a runId and reads its failures from the runs table, not mapResults"}
		}
		if h.Failures == nil {
			return nil, &InternalError{"this reduce function cannot read recorded map failures"}
		}
		recorded, err := h.Failures.MapFailures(ctx, in.QueryID, in.RunID)
		if err != nil {
			return nil, err
		}
		for index, errName := range recorded {
			failures = append(failures, failure(index, errName))
		}
		// Batch order, as the inline Map reports them.
		slices.SortFunc(failures, func(a, b globalsearch.BatchFailure) int { return a.BatchIndex - b.BatchIndex })
	default:
		return nil, &InvalidInputError{fmt.Sprintf("reduce input mode %q is neither %q nor %q", in.Mode, ModeInline, ModeDistributed)}
	}
	return failures, nil
}

// failUnparsed records a request that failed validation as a failed run when
// it has a usable query id (its own, else the execution name), so a caller
// polling that id learns why; Engine.Reject writes only under an id this
// request creates, never over another run.
func (h *Handlers) failUnparsed(ctx context.Context, in PrepareInput, cause error) {
	var loose struct {
		Query   any    `json:"query"`
		QueryID string `json:"queryId"`
	}
	_ = json.Unmarshal(in.Request, &loose)
	p := globalsearch.Params{QueryID: loose.QueryID}
	if p.QueryID == "" || !globalsearch.ValidQueryID(p.QueryID) {
		p.QueryID = in.ExecutionName
	}
	if !globalsearch.ValidQueryID(p.QueryID) {
		return
	}
	if q, ok := loose.Query.(string); ok {
		p.Query = q
	}
	_, _ = h.Engine.Reject(context.WithoutCancel(ctx), p, in.ExecutionName, cause)
}

// errHandlerDeadline is the cause of a context that withMargin ended.
var errHandlerDeadline = errors.New("the call did not finish before the Lambda deadline (less a margin to report it)")

// Margin is how long before the Lambda deadline a handler gives up when
// left time remains: a tenth of it, between 1 and 5 seconds. The task's
// TimeoutSeconds in the ASL lies beyond the function's Timeout, which lies
// beyond left - Margin(left) (statemachine_test.go checks the three).
func Margin(left time.Duration) time.Duration {
	return min(max(left/10, time.Second), 5*time.Second)
}

// withMargin ends ctx Margin before the Lambda deadline, so a slow model or
// table call fails with a named, retryable error instead of the function
// timing out (which only the state machine's RecordFailure would record).
func withMargin(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadlineCause(ctx, deadline.Add(-Margin(time.Until(deadline))), errHandlerDeadline)
}

// handlerError is the error a handler running under ctx returns for err:
// Named, except that a call that ran out of the handler's time reads as
// such (ThrottledError, so the state machine retries it) rather than as
// whatever error the SDK wrapped it in.
func handlerError(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), errHandlerDeadline) {
		return &ThrottledError{fmt.Sprintf("%v: %v", errHandlerDeadline, err)}
	}
	return Named(err)
}
