package globalsearch

import (
	"context"
	"fmt"
	"sync"
)

// Search runs a whole search in one process (SPEC §9) through the same
// steps the state machine runs: Prepare, MapBatch for every batch with at
// most min(mapConcurrency, batches) in flight and two attempts each, then
// Reduce with two attempts (then FailReduce), all in the run Prepare
// started. The returned Result is also saved in Runs; on failure it has
// status failed and the error says why, except when the query id names a
// different request: then nothing is saved and the Result is empty.
//
// p must meet every rule of SPEC §2, as ParseRequest returns it: a Params
// built by hand that breaks one (a mapConcurrency of 0 would leave every
// batch waiting for a worker forever) is invalid input, refused before any
// read, write or model call and recorded nowhere, since its query id may
// not be the caller's to write.
func (e *Engine) Search(ctx context.Context, p Params) (Result, error) {
	if err := p.validate(e.prompts()); err != nil {
		return Result{}, err
	}
	out, failed, err := e.prepare(ctx, p)
	if err != nil {
		return failed, err
	}
	var (
		progressMu sync.Mutex
		finished   int
	)
	errs := forEachBatch(ctx, out.BatchCount, p.MapConcurrency, MapAttempts, func(ctx context.Context, index, attempt int) error {
		_, err := e.MapBatch(ctx, p.QueryID, out.RunID, index, attempt)
		if e.Progress != nil && (err == nil || attempt == MapAttempts) {
			// Counting and reporting under one lock: a count taken outside
			// it could be reported after a larger one (17/43, then 14/43).
			progressMu.Lock()
			finished++
			e.Progress(finished, out.BatchCount)
			progressMu.Unlock()
		}
		return err
	})
	var failures []BatchFailure
	for i, err := range errs {
		if err != nil {
			attempts := MapAttempts
			if ctx.Err() != nil {
				attempts = 0 // cancelled before or during its calls: not known to have cost anything
			}
			failures = append(failures, BatchFailure{BatchIndex: i, Message: err.Error(), Attempts: attempts})
		}
	}
	for attempt := 1; ; attempt++ {
		res, err := e.Reduce(ctx, p.QueryID, out.RunID, failures)
		if err == nil || KindOf(err) == KindAllBatchesFailed {
			return res, err
		}
		if attempt == ReduceAttempts || ctx.Err() != nil {
			return e.FailReduce(ctx, p.QueryID, out.RunID, failures, err)
		}
	}
}

// Reject records a request that failed validation as a failed run under
// p.QueryID, so a caller polling that id learns why. p is what could be read
// of the request (its id and query). An invalid request never writes under
// an id it did not create (SPEC §11.1): the failure is saved only when this
// call records p as the id's request, or finds that same rejected request
// there (a retried call). It returns that result, if any, and cause.
func (e *Engine) Reject(ctx context.Context, p Params, cause error) (Result, error) {
	stored, created, err := e.Runs.CreateRequest(ctx, p)
	if err != nil {
		return Result{}, fmt.Errorf("%w (and recording the failure: %v)", cause, err)
	}
	if !created && stored != p {
		return Result{}, cause
	}
	return e.failRun(ctx, p, cause)
}

// failRun records a run that cannot go on (invalid input found while
// planning, a corrupt index, a plan too large) as failed, so the runs store
// says failed before the run ends, and returns that result with cause.
// Other errors may pass on a retry and are returned without a result. The
// caller owns the query id (it created or repeated its request), so the
// result is saved unconditionally, and runs before it can no longer save
// theirs.
func (e *Engine) failRun(ctx context.Context, p Params, cause error) (Result, error) {
	switch KindOf(cause) {
	case KindInvalidInput, KindCorruptIndex, KindPlanTooLarge:
	default:
		return Result{}, cause
	}
	now := e.now()
	res := Result{
		QueryID: p.QueryID, Namespace: p.Namespace, Query: p.Query, CommunityLevel: p.CommunityLevel,
		Status: StatusFailed, Error: cause.Error(),
		SelectedMapAnswers: []SelectedAnswer{}, MapErrors: []BatchFailure{},
		Diagnostics: Diagnostics{ShuffleSeed: p.ShuffleSeed, StartedAt: now, FinishedAt: now},
	}
	if err := e.Runs.SaveResult(saveContext(ctx, StatusFailed), res, ""); err != nil {
		return res, fmt.Errorf("%w (and saving the failed result: %v)", cause, err)
	}
	return res, cause
}
