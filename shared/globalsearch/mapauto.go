package globalsearch

import (
	"context"
	"errors"

	"github.com/graphrag-global/graphrag-global/shared/aimd"
)

// AutoConcurrency runs an in-process Search's map calls under an adaptive
// limit instead of the request's fixed mapConcurrency
// (docs/contract.md#auto-concurrency): it starts at its ceiling, halves
// when the model refuses a call for load (KindThrottled) once it has
// admitted one (an empty quota's refusals leave it) and grows by one
// after each window of admitted calls. A refused call waits in the
// limiter's one queue and is sent again when its pacer's probe comes,
// without spending one of the batch's MapAttempts, up to ThrottleRetries
// times a batch; past that each refusal is a failed
// attempt, so a model that never admits a call still ends the run.
type AutoConcurrency struct {
	// Ceiling is the most map calls in flight; 0 is DefaultAutoCeiling.
	// The number of batches caps it too.
	Ceiling int
}

// DefaultAutoCeiling is the ceiling of AutoConcurrency. 64 calls of ~8k
// tokens and ~10 s reserve about 3M tokens a minute, more than a model's
// quota usually admits, so the quota rather than the ceiling sets the
// limit; and one process keeps 64 calls in flight without strain.
const DefaultAutoCeiling = 64

// ThrottleRetries is how many refused calls a batch retries without
// spending an attempt: against a model that refuses every call, the
// pacer's intervals of package aimd (1, 2, 4, 8, 16, then 30 s) make that
// about two minutes of refusals.
const ThrottleRetries = 8

// AutoConcurrencyReport is what the adaptive limit did in one run, as
// diagnostics.map.autoConcurrency records it: its Ceiling is the configured
// ceiling or the batch count, the lower, and the calls it counts as
// Throttled are not in modelCalls, which counts attempts.
type AutoConcurrencyReport = aimd.Stats

// forEachBatch is the package's forEachBatch under the adaptive limit, with
// MapAttempts tries each: it returns each batch's last error (nil when it
// succeeded) in index order and what the limit did. done hears of each
// batch once its tries are over.
func (a AutoConcurrency) forEachBatch(ctx context.Context, count int, try func(ctx context.Context, index, attempt int) error, done func()) ([]error, *AutoConcurrencyReport) {
	ceiling := a.Ceiling
	if ceiling <= 0 {
		ceiling = DefaultAutoCeiling
	}
	if count == 0 {
		return nil, &AutoConcurrencyReport{} // no call to make, no limit to adapt
	}
	ceiling = min(ceiling, count)
	limiter := aimd.New(ceiling)
	errs := runPool(ctx, count, ceiling, try, func(ctx context.Context, call func(attempt int) error) error {
		return admitted(ctx, limiter, call)
	}, done)
	s := limiter.Stats()
	return errs, &s
}

// admitted makes the attempts at one batch, each in a slot of limiter. A
// call the model refused for load gives its slot back and is made again
// when the limiter's pacer sends it, as the same attempt, ThrottleRetries
// times at most: a refusal is admission denied, not a failed call.
func admitted(ctx context.Context, limiter *aimd.Limiter, call func(attempt int) error) error {
	var last error
	refusals := 0
	for attempt := 1; attempt <= MapAttempts; {
		if err := ctx.Err(); err != nil {
			return err
		}
		take := limiter.Acquire
		if refused(last) {
			take = limiter.Retry // the pacer sends it again (docs/contract.md#auto-concurrency)
		}
		slot, err := take(ctx)
		if err != nil {
			return err
		}
		switch last = call(attempt); {
		case last == nil:
			limiter.Done(slot)
			return nil
		case !refused(last):
			limiter.Done(slot)
			attempt++
			continue
		}
		limiter.Throttled(slot)
		if refusals++; refusals > ThrottleRetries {
			attempt++
		}
	}
	return last
}

// refused reports whether err is MapBatch's report of a model call the
// model refused for load, rather than a read or save the store throttled.
func refused(err error) bool {
	var b *BatchError
	return errors.As(err, &b) && b.refused
}
