package globalsearch

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Search runs a whole search in one process (SPEC §9) through the same
// steps the state machine runs: Prepare, MapBatch for every batch with at
// most min(mapConcurrency, batches) in flight and two attempts each, then
// Reduce with two attempts (then FailReduce). The returned Result is also saved in Runs; on
// failure it has status failed and the error says why.
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
	out, err := e.Prepare(ctx, p)
	if err != nil {
		return e.FailRun(ctx, p, err)
	}
	var finished atomic.Int64
	errs := forEachBatch(ctx, out.BatchCount, p.MapConcurrency, MapAttempts, func(ctx context.Context, index, attempt int) error {
		_, err := e.MapBatch(ctx, p.QueryID, index, attempt)
		if e.Progress != nil && (err == nil || attempt == MapAttempts) {
			e.Progress(int(finished.Add(1)), out.BatchCount)
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
		res, err := e.Reduce(ctx, p.QueryID, failures)
		if err == nil || KindOf(err) == KindAllBatchesFailed {
			return res, err
		}
		if attempt == ReduceAttempts || ctx.Err() != nil {
			return e.FailReduce(ctx, p.QueryID, failures, err)
		}
	}
}

// FailRun records a run that cannot go on (invalid input found while
// planning, a corrupt index, a plan too large) as failed, so the runs store
// says failed before the run ends, and returns that result with cause.
// Other errors may pass on a retry and are returned without a result.
func (e *Engine) FailRun(ctx context.Context, p Params, cause error) (Result, error) {
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
	if err := e.Runs.SaveResult(saveContext(ctx, StatusFailed), res); err != nil {
		return res, fmt.Errorf("%w (and saving the failed result: %v)", cause, err)
	}
	return res, cause
}
