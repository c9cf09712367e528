package globalsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
)

// Search runs a whole search in one process (docs/contract.md#local) through the same
// steps the state machine runs: Prepare, MapBatch for every batch with at
// most min(mapConcurrency, batches) in flight and two attempts each (with
// AutoConcurrency set, under its adaptive limit instead), in tree mode the
// reduce rounds (reduceRounds), then Reduce with two attempts (then
// FailReduce), all in the run Prepare started. The returned Result is also saved in Runs; on failure it has
// status failed and the error says why, except when the query id names a
// different request: then nothing is saved and the Result is empty.
//
// p must meet every rule of docs/contract.md#request, as ParseRequest returns it: a Params
// built by hand that breaks one (a mapConcurrency of 0 would leave every
// batch waiting for a worker forever) is invalid input, refused before any
// read, write or model call and recorded nowhere, since its query id may
// not be the caller's to write.
func (e *Engine) Search(ctx context.Context, p Params) (Result, error) {
	if err := p.validate(e.prompts()); err != nil {
		return Result{}, err
	}
	out, failed, err := e.prepare(ctx, p, "")
	if err != nil {
		return failed, err
	}
	var (
		progressMu sync.Mutex
		finished   int
	)
	batchDone := func() {
		if e.Progress != nil {
			// Counting and reporting under one lock: a count taken outside
			// it could be reported after a larger one (17/43, then 14/43).
			progressMu.Lock()
			finished++
			e.Progress(finished, out.BatchCount)
			progressMu.Unlock()
		}
	}
	try := func(ctx context.Context, index, attempt int) error {
		_, err := e.MapBatch(ctx, p.QueryID, out.RunID, index, attempt)
		return err
	}
	reducer := e
	var errs []error
	if e.AutoConcurrency != nil {
		var report *AutoConcurrencyReport
		errs, report = e.AutoConcurrency.forEachBatch(ctx, out.BatchCount, try, batchDone)
		// The report reaches the result through the engine that reduces.
		withReport := *e
		withReport.autoReport, reducer = report, &withReport
	} else {
		errs = forEachBatch(ctx, out.BatchCount, p.MapConcurrency, MapAttempts, func(ctx context.Context, index, attempt int) error {
			err := try(ctx, index, attempt)
			if err == nil || attempt == MapAttempts {
				batchDone()
			}
			return err
		})
	}
	var failures []BatchFailure
	for i, err := range errs {
		if err != nil {
			attempts := MapAttempts
			if ctx.Err() != nil {
				// Cancelled: the calls it made are spent all the same
				// (docs/contract.md#cancel).
				attempts = callsMade(err)
			}
			failures = append(failures, failureOf(i, err, attempts))
		}
	}
	if err := reducer.reduceRounds(ctx, p, out.RunID, failures); err != nil {
		return reducer.FailReduce(ctx, p.QueryID, out.RunID, failures, err)
	}
	for attempt := 1; ; attempt++ {
		res, err := reducer.Reduce(ctx, p.QueryID, out.RunID, failures)
		if err == nil || KindOf(err) == KindAllBatchesFailed {
			return res, err
		}
		if attempt == ReduceAttempts || ctx.Err() != nil {
			return reducer.FailReduce(ctx, p.QueryID, out.RunID, failures, err)
		}
	}
}

// ReduceGroupAttempts is how many attempts each group of a reduce round
// gets, as a map batch does (docs/contract.md#reduce-rounds).
const ReduceGroupAttempts = MapAttempts

// reduceRounds drives a tree reduce's rounds in one process
// (docs/contract.md#reduce-rounds) through the steps the state machine
// runs: PlanReduceRound, then every group of its round through the
// worker pool at the map concurrency with ReduceGroupAttempts each, until
// PlanReduceRound says the final call may follow. A group that fails every
// attempt is recorded as such and the rounds go on; only a failed
// PlanReduceRound is an error. In single mode it makes no call at all.
func (e *Engine) reduceRounds(ctx context.Context, p Params, runID string, failures []BatchFailure) error {
	if reduceModeOf(p) != ReduceModeTree {
		return nil
	}
	for {
		round, err := e.PlanReduceRound(ctx, p.QueryID, runID, failures)
		if err != nil || round.Groups == 0 {
			return err
		}
		forEachBatch(ctx, round.Groups, p.MapConcurrency, ReduceGroupAttempts, func(ctx context.Context, index, attempt int) error {
			return e.ReduceGroupAttempt(ctx, p.QueryID, runID, round.Round, index, attempt)
		})
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// validate applies every rule of docs/contract.md#request to p, through ParseRequest's own
// path, with prompts for the budget checks: Params built in Go (tests, other
// callers of Engine.Search) meet the same rules as a JSON request. A
// resolved Params has every field, so the defaults are never used. The
// ceiling on model calls is the one exception: whoever resolved p held it to
// their deployment's, which may be above the default (docs/contract.md#state-machine), so none
// applies here.
func (p Params) validate(prompts Prompts) error {
	data, err := json.Marshal(p)
	if err != nil {
		return Errorf(KindInvalidInput, "encode params: %w", err)
	}
	d := SpecDefaults
	d.MaxModelCalls = 0
	_, err = parseRequest(data, d, "", prompts)
	return err
}

// forEachBatch runs try for every batch index with at most workers in
// flight and up to attempts tries each. It returns the failures in index
// order; a cancelled ctx fails what has not started.
func forEachBatch(ctx context.Context, count, workers, attempts int, try func(ctx context.Context, index, attempt int) error) []error {
	return runPool(ctx, count, workers, try, func(ctx context.Context, call func(attempt int) error) (err error) {
		for attempt := 1; attempt <= attempts; attempt++ {
			if cerr := ctx.Err(); cerr != nil {
				if err == nil {
					err = cerr
				}
				// The last attempt's error, when there was one, says
				// what it cost (callsMade).
				return err
			}
			if err = call(attempt); err == nil {
				return nil
			}
		}
		return err
	}, nil)
}

// runPool is the worker pool of every map-like stage: workers goroutines
// take the batch indexes in order, and tries makes a batch's tries, each
// through call (try on that index), returning the last one's error. done,
// when set, hears of each batch once tries returns. It returns each
// batch's error (nil when it succeeded) in index order.
//
// A panic in try is a bug, not a failed batch: the pool stops starting
// calls, and once every worker has returned the panic is raised again as a
// *WorkerPanic on the caller's goroutine, where the edge that recovers
// panics (the CLI's command edge, the Lambda runtime) can see it. Left in
// the worker it would end the process past every recover.
func runPool(ctx context.Context, count, workers int, try func(ctx context.Context, index, attempt int) error,
	tries func(ctx context.Context, call func(attempt int) error) error, done func()) []error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make([]error, count)
	next := make(chan int)
	var wg sync.WaitGroup
	guard := &workerGuard{stop: stop}
	for range min(workers, count) {
		wg.Go(func() {
			for i := range next {
				errs[i] = tries(ctx, func(attempt int) error { return guard.try(ctx, try, i, attempt) })
				if done != nil {
					done()
				}
			}
		})
	}
	for i := range count {
		next <- i
	}
	close(next)
	wg.Wait()
	guard.raise()
	return errs
}

// workerGuard keeps a worker pool's first panic: try recovers it and stops
// the pool (stop), raise raises it again once every worker has returned.
type workerGuard struct {
	stop     context.CancelFunc
	once     sync.Once
	panicked *WorkerPanic
}

func (g *workerGuard) try(ctx context.Context, try func(ctx context.Context, index, attempt int) error, index, attempt int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			g.once.Do(func() { g.panicked = &WorkerPanic{Value: v, Stack: debug.Stack()} })
			g.stop()
			err = context.Canceled
		}
	}()
	return try(ctx, index, attempt)
}

// raise is called once the workers have all returned, so panicked is no
// longer written.
func (g *workerGuard) raise() {
	if g.panicked != nil {
		panic(g.panicked)
	}
}

// WorkerPanic is a panic of a map worker raised again on the goroutine
// that ran the worker pool (forEachBatch), with the worker's own stack.
type WorkerPanic struct {
	Value any
	Stack []byte
}

func (p *WorkerPanic) Error() string { return fmt.Sprintf("map worker panicked: %v", p.Value) }
