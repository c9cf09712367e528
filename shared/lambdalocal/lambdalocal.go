// Package lambdalocal runs one of the deployment's Lambda handlers on an
// event in process, through aws-lambda-go's own JSON path
// (lambda.NewHandler(...).Invoke), with local adapters in place of AWS: it
// is the harness of `globalsearch invoke` (docs/aws.md#local-invoke-no-docker-needed).
// The runs store starts empty, so Invoke first seeds what the event needs
// through the same handlers, and the api function's executions run in
// process through localrun, as `globalsearch serve`'s do.
package lambdalocal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localrun"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// SampleQuery is the query invoke seeds runs with unless told otherwise:
// the sample index's question, as make run asks it.
const SampleQuery = "What are the main themes across Veloria's development over the decade?"

// Config is what the handlers run with.
type Config struct {
	// Engine holds the index, the model (none needed for prepare), the
	// prices and the logger; its Runs is Runs.
	Engine *globalsearch.Engine
	// Runs is the runs store every handler reads and writes, empty of
	// runs until Invoke seeds it (memstore.Store).
	Runs Runs
	// Defaults resolve a request as the deployment's GRAPHRAG_* do.
	Defaults globalsearch.Defaults
	// SeedQuery is the query of the runs seeded for map, reduce and api
	// GET and DELETE events.
	SeedQuery string
	// Progress hears one line per seeding step; nil discards them.
	Progress io.Writer
}

// Runs is a runs store both the workflow's handlers and the API's use, as
// one runs table serves both deployed.
type Runs interface {
	globalsearch.Runs
	api.Runs
}

// FunctionError is a handler's error as Lambda reports it: Type is the
// errorType Step Functions' Retry and Catch match on.
type FunctionError struct {
	Type string
	Err  error
}

func (e *FunctionError) Error() string { return e.Type + ": " + e.Err.Error() }
func (e *FunctionError) Unwrap() error { return e.Err }

// EventError is an invocation refused before anything is seeded or run:
// an unknown function, or an event of another function.
type EventError struct{ Message string }

func (e *EventError) Error() string { return e.Message }

// Invoke runs the handler of function name on payload, read from file
// (named in messages), with the store seeded for it, and returns the
// handler's output. A handler's error returns Lambda's error envelope
// ({"errorType", "errorMessage"}) as output, with a *FunctionError.
// api's executions have all ended when Invoke returns, so the runs store
// holds what they wrote.
func Invoke(ctx context.Context, cfg Config, name, file string, payload []byte) ([]byte, error) {
	if err := CheckEvent(name, file, payload); err != nil {
		return nil, err
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	e := *cfg.Engine
	e.Runs = cfg.Runs
	cfg.Engine = &e
	starter := localrun.New(ctx, cfg.Engine, cfg.Defaults)
	defer starter.Close()
	s := &seeder{ctx: ctx, cfg: cfg, starter: starter,
		handlers: &workflow.Handlers{Engine: cfg.Engine, Defaults: cfg.Defaults}}
	fn, opts, err := s.handler(name, payload)
	if err != nil {
		return nil, err
	}
	out, err := lambda.NewHandlerWithOptions(fn, opts...).Invoke(ctx, payload)
	// A POST's execution runs on: wait for it, as a state machine would
	// finish it, rather than end the process under it.
	starter.Wait()
	if err != nil {
		fe := &FunctionError{Type: workflow.ErrorType(err), Err: err}
		envelope, _ := json.Marshal(map[string]string{"errorType": fe.Type, "errorMessage": err.Error()})
		return envelope, fe
	}
	return out, nil
}

// handler is the handler of function name and its Lambda options, with
// the store seeded for payload.
func (s *seeder) handler(name string, payload []byte) (fn any, opts []lambda.Option, err error) {
	opts = workflow.Options()
	switch name {
	case "prepare":
		fn = s.handlers.Prepare
	case "map":
		fn = s.handlers.Map
		err = s.seedMap(payload)
	case "reduce":
		fn = s.handlers.Reduce
		err = s.seedReduce(payload)
	case "api":
		e := s.cfg.Engine
		fn = (&api.Handler{Runs: s.cfg.Runs, Starter: s.starter, Defaults: s.cfg.Defaults, Prices: e.Prices, Logger: e.Logger}).Handle
		opts = nil // API Gateway events gain fields over time; Lambda does not reject them either
		err = s.seedAPI(payload)
	default:
		return nil, nil, &EventError{fmt.Sprintf("unknown function %q: prepare, map, reduce or api", name)}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("seed the local store: %w", err)
	}
	return fn, opts, nil
}
