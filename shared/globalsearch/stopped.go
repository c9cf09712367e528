package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// ResultState is a query id's result item as the runs store holds it: who
// owns it, its status, the run that may still save it and whether a whole
// result is stored. It is what the record of a stopped execution
// (RecordStopped) reads before its one conditional write.
type ResultState struct {
	Owner  string
	Status Status
	// RunID is the run that may still save the result: "" before the
	// query id's first plan, or once a failure the state machine recorded
	// itself ended the run.
	RunID string
	// FailedRunID is the run such a failure ended (RecordFailure in the
	// ASL names it), "" when none did.
	FailedRunID string
	// Saved says a whole result is stored (completed, partial, no_results,
	// cancelled, or a failure a function saved): it is never replaced.
	Saved bool
}

// StoppedResults is the runs store's side of a stopped execution's record
// (docs/contract.md#stopped-executions).
type StoppedResults interface {
	// ResultState reads the query id's result item; ErrNotFound when it
	// has none (or it expired).
	ResultState(ctx context.Context, queryID string) (ResultState, error)
	// RecordStopped saves r as the query id's result and ends its run, on
	// the condition that the item is still as was says: the same owner,
	// status and run, and no whole result. An item changed since is
	// ErrNotFound, and nothing is written.
	RecordStopped(ctx context.Context, r Result, was ResultState) error
}

// ExecutionEnd is how a deployed execution ended without succeeding: its
// name (the owner it would have claimed the result as), its status
// (ABORTED, TIMED_OUT or FAILED) and the error and cause Step Functions
// gives.
type ExecutionEnd struct {
	Owner, Status, Error, Cause string
}

// RecordStopped records what an execution that ended without a result of
// its own left behind (docs/contract.md#stopped-executions): the result
// of the run it owned, cancelled when it was stopped (ABORTED), failed
// when it timed out or failed, with what the run spent (RunSpend, the rule
// the API's cancel uses), and a failure the state machine recorded itself
// (RecordFailure, which can write no figures) completed with that run's
// spend. It writes nothing, and reports false, when the execution does
// not own the query id's result (another request, a newer run), or when a
// whole result is saved already: a completed result is never overwritten.
func (e *Engine) RecordStopped(ctx context.Context, queryID string, end ExecutionEnd) (Result, bool, error) {
	stopped, ok := e.Runs.(StoppedResults)
	if !ok {
		return Result{}, false, Errorf(KindInternal, "this runs store cannot record a stopped execution")
	}
	if queryID == "" || end.Owner == "" {
		return Result{}, false, Errorf(KindInvalidInput, "a stopped execution's record needs a query id and the execution's name")
	}
	st, err := stopped.ResultState(ctx, queryID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Result{}, false, nil
	case err != nil:
		return Result{}, false, fmt.Errorf("record stopped execution %s: %w", end.Owner, err)
	case st.Owner != end.Owner || st.Saved:
		return Result{}, false, nil
	}
	res, run, err := e.stoppedResult(ctx, queryID, end, st)
	if err != nil || res.QueryID == "" {
		return Result{}, false, err
	}
	// A run not yet planned made no call: its figures are 0, priced.
	var spent Diagnostics
	if run != "" {
		spent = e.runSpend(ctx, queryID, run)
	} else {
		spent.addTotals(e.Prices)
	}
	res = res.WithSpend(spent)
	err = stopped.RecordStopped(ctx, res, st)
	switch {
	case errors.Is(err, ErrNotFound):
		// Changed since the read: a result, a cancel or a new run came
		// first, and it stands.
		return Result{}, false, nil
	case err != nil:
		return Result{}, false, fmt.Errorf("record stopped execution %s: %w", end.Owner, err)
	}
	e.logger().LogAttrs(ctx, slogInfo, "stopped execution recorded", slog.String("queryId", queryID),
		slog.String("execution", end.Owner), slog.String("executionStatus", end.Status), slog.String("status", string(res.Status)),
		slog.Int("modelCalls", res.Diagnostics.ModelCalls))
	return res, true, nil
}

// stoppedResult is the result a stopped execution's record writes, before
// its spend, and the run whose spend it reports ("" for none): an empty
// result when the item is in no state such a record completes.
func (e *Engine) stoppedResult(ctx context.Context, queryID string, end ExecutionEnd, st ResultState) (Result, string, error) {
	p, err := e.Runs.Request(ctx, queryID)
	if err != nil {
		return Result{}, "", fmt.Errorf("record stopped execution %s: load request: %w", end.Owner, err)
	}
	now := e.now()
	switch {
	case st.Status == StatusRunning && end.Status == "ABORTED":
		return CancelledResult(p, now), st.RunID, nil
	case st.Status == StatusRunning:
		msg := "the execution ended " + end.Status + " before it saved a result"
		if why := joinNonEmpty(end.Error, end.Cause); why != "" {
			msg += ": " + why
		}
		return withRequest(FailedResult(queryID, msg, now), p), st.RunID, nil
	case st.Status == StatusFailed && st.FailedRunID != "":
		recorded, err := e.Runs.Result(ctx, queryID)
		if err != nil {
			return Result{}, "", fmt.Errorf("record stopped execution %s: load its failure: %w", end.Owner, err)
		}
		return withRequest(recorded, p), st.FailedRunID, nil
	}
	// A failure recorded before any run (RecordPrepareFailure: the
	// prepare that failed made no model call), or another status.
	return Result{}, "", nil
}

// withRequest fills in what a result built without a plan says of its
// request.
func withRequest(res Result, p Params) Result {
	res.Namespace, res.Query, res.CommunityLevel = p.Namespace, p.Query, p.CommunityLevel
	res.Diagnostics.ShuffleSeed = p.ShuffleSeed
	return res
}

// joinNonEmpty is "a: b" of the parts that are not empty.
func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ": " + b
}
