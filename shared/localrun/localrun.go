// Package localrun runs queries in process where a deployment's Step
// Functions would: it is the api.Starter of `globalsearch serve`
// (docs/contract.md#serve). Each execution is one Engine.Search on its own
// goroutine, named by the query id as a state machine's execution is, and
// writes to the runs store the API reads.
package localrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The execution statuses Execution reports: Step Functions' names, so the
// API reads a local run as it reads a deployed one.
const (
	StatusRunning   = "RUNNING"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
	StatusAborted   = "ABORTED"
)

// Starter starts and stops in-process executions. It is safe for
// concurrent use.
type Starter struct {
	engine   globalsearch.Engine
	defaults globalsearch.Defaults
	logger   *slog.Logger
	base     context.Context
	closeAll context.CancelFunc
	wg       sync.WaitGroup

	mu   sync.Mutex
	runs map[string]*execution
}

// execution is one started search.
type execution struct {
	input   []byte
	cancel  context.CancelCauseFunc
	done    chan struct{}
	status  string // guarded by Starter.mu
	failure string // guarded by Starter.mu
	stopped bool   // guarded by Starter.mu
	// spent is what the search spent by the time it returned, the calls a
	// stop cut short included (docs/contract.md#cancel); guarded by
	// Starter.mu.
	spent globalsearch.Diagnostics
}

// New returns a Starter that runs e (whose Runs is the store the API
// reads) with requests resolved by defaults, as prepare resolves them. Its
// executions outlive the HTTP request that started them, as a state
// machine's do, and end when ctx does or Close is called.
func New(ctx context.Context, e *globalsearch.Engine, defaults globalsearch.Defaults) *Starter {
	base, closeAll := context.WithCancel(context.WithoutCancel(ctx))
	s := &Starter{engine: *e, defaults: defaults, base: base, closeAll: closeAll, runs: map[string]*execution{}}
	s.logger = e.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	go func() {
		<-ctx.Done()
		closeAll()
	}()
	return s
}

// Start starts the execution name with input, a request as the API
// passes it. Repeating a start with the same input is success and starts
// nothing; the same name with another input is invalid input, as Step
// Functions refuses it.
func (s *Starter) Start(_ context.Context, name string, input []byte) error {
	p, err := globalsearch.ParseRequest(input, s.defaults)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if x, ok := s.runs[name]; ok {
		if !bytes.Equal(x.input, input) {
			return globalsearch.Errorf(globalsearch.KindInvalidInput,
				"query id %s already names an execution with a different request", name)
		}
		return nil
	}
	if s.base.Err() != nil {
		return fmt.Errorf("start execution %s: the server is shutting down", name)
	}
	ctx, cancel := context.WithCancelCause(s.base)
	x := &execution{input: bytes.Clone(input), cancel: cancel, done: make(chan struct{}), status: StatusRunning}
	s.runs[name] = x
	s.wg.Go(func() { s.run(ctx, name, p, x) })
	return nil
}

// run is one execution: the whole search, then its status.
func (s *Starter) run(ctx context.Context, name string, p globalsearch.Params, x *execution) {
	defer close(x.done)
	res, err := s.search(ctx, p)
	s.mu.Lock()
	defer s.mu.Unlock()
	x.spent = res.Diagnostics
	switch {
	case x.stopped:
		x.status = StatusAborted
	case err != nil:
		x.status, x.failure = StatusFailed, err.Error()
	default:
		x.status = StatusSucceeded
	}
	x.cancel(nil)
	s.logger.LogAttrs(ctx, slog.LevelInfo, "local execution ended", slog.String("queryId", name), slog.String("status", x.status))
}

// search runs p. A panic (a bug, a map worker's included) fails this
// execution with its stack in the log instead of ending the server.
func (s *Starter) search(ctx context.Context, p globalsearch.Params) (res globalsearch.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			stack := debug.Stack()
			if wp, ok := v.(*globalsearch.WorkerPanic); ok {
				v, stack = wp.Value, wp.Stack
			}
			s.logger.LogAttrs(ctx, slog.LevelError, "local execution panicked", slog.String("queryId", p.QueryID),
				slog.String("error", fmt.Sprint(v)), slog.String("stack", string(stack)))
			err = fmt.Errorf("internal error: %v", v)
		}
	}()
	// A stopped run writes nothing more, as a stopped execution runs no
	// further task (stoppedRuns).
	e := s.engine
	e.Runs = stoppedRuns{Runs: s.engine.Runs, run: ctx}
	return e.Search(ctx, p)
}

// Spent is what the execution name spent, by stage, once it has ended
// (false before, or when there is none): a stopped search's calls, those
// its stop cut short included, are in no store (docs/contract.md#cancel).
func (s *Starter) Spent(name string) (globalsearch.Diagnostics, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.runs[name]
	if !ok || x.status == StatusRunning {
		return globalsearch.Diagnostics{}, false
	}
	return x.spent, true
}

// Execution reports the status of the execution name ("" when there is
// none) and, for one that failed, why.
func (s *Starter) Execution(_ context.Context, name string) (status, failure string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.runs[name]
	if !ok {
		return "", "", nil
	}
	return x.status, x.failure, nil
}

// Done is closed once the execution name has ended; it is nil when there
// is no such execution.
func (s *Starter) Done(name string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x, ok := s.runs[name]; ok {
		return x.done
	}
	return nil
}

// Stop stops the execution name: it cancels the search's context with
// cause and returns once the search has returned, so nothing of the run is
// written after Stop. Stopping an execution that already ended, or never
// started, is no error, as execution.Starter's is: there is nothing left
// to stop, and the API records the cancel of a query recorded but not run
// (docs/contract.md#cancel).
func (s *Starter) Stop(ctx context.Context, name, cause string) error {
	s.mu.Lock()
	x, ok := s.runs[name]
	if ok && x.status == StatusRunning {
		x.stopped = true
		x.cancel(errors.New(cause))
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-x.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait returns once every execution started so far has ended, stopping
// none: a one-shot process (`globalsearch invoke api`) lets the search it
// started finish, as the state machine would, before it exits.
func (s *Starter) Wait() { s.wg.Wait() }

// Close stops every execution still running and waits for them all.
func (s *Starter) Close() {
	// Under the lock, so that no execution starts after it and each one
	// running reads as stopped when it ends.
	s.mu.Lock()
	s.closeAll()
	for _, x := range s.runs {
		if x.status == StatusRunning {
			x.stopped = true
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// stoppedRuns refuses every write once the execution's context run has
// ended: a stopped execution's search may still be between two steps, and
// what it would save there (a map answer, a failed result) must not reach
// the store the stop already decided. It checks run, not the context of
// the write, since the engine records a failure on a context freed of the
// cancel (context.WithoutCancel).
type stoppedRuns struct {
	globalsearch.Runs
	run context.Context
}

func (r stoppedRuns) CreateRequest(ctx context.Context, p globalsearch.Params, owner string) (globalsearch.Params, bool, error) {
	if err := context.Cause(r.run); err != nil {
		return globalsearch.Params{}, false, err
	}
	return r.Runs.CreateRequest(ctx, p, owner)
}

func (r stoppedRuns) SavePlan(ctx context.Context, p globalsearch.Plan) error {
	if err := context.Cause(r.run); err != nil {
		return err
	}
	return r.Runs.SavePlan(ctx, p)
}

func (r stoppedRuns) SaveMapAnswer(ctx context.Context, queryID, runID string, a globalsearch.MapAnswer) error {
	if err := context.Cause(r.run); err != nil {
		return err
	}
	return r.Runs.SaveMapAnswer(ctx, queryID, runID, a)
}

func (r stoppedRuns) SaveResult(ctx context.Context, res globalsearch.Result, runID string) error {
	if err := context.Cause(r.run); err != nil {
		return err
	}
	return r.Runs.SaveResult(ctx, res, runID)
}

func (r stoppedRuns) AddReduceCall(ctx context.Context, queryID, runID string) (int, error) {
	if err := context.Cause(r.run); err != nil {
		return 0, err
	}
	return r.Runs.AddReduceCall(ctx, queryID, runID)
}

func (r stoppedRuns) SaveReduceGroups(ctx context.Context, queryID, runID string, groups []globalsearch.ReduceGroup) error {
	if err := context.Cause(r.run); err != nil {
		return err
	}
	return r.Runs.SaveReduceGroups(ctx, queryID, runID, groups)
}

func (r stoppedRuns) AddGroupAnswer(ctx context.Context, queryID, runID string, a globalsearch.GroupAnswer) error {
	if err := context.Cause(r.run); err != nil {
		return err
	}
	return r.Runs.AddGroupAnswer(ctx, queryID, runID, a)
}
