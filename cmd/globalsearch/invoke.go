package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

const invokeHelp = `usage: globalsearch invoke <prepare|map|reduce|api> --event FILE [--index FILE] [--model offline] [--query TEXT] [-v]

Runs one Lambda handler on an event file (events/*.json) through
aws-lambda-go's own JSON path (lambda.NewHandler(...).Invoke), the way
Lambda runs it, with local adapters instead of AWS: the index file in an
in-memory store (default testdata/sample-index.json), the model --model
names (default offline), and for api a local starter that runs the whole
search in process. No Docker, no network with the offline model.

The store starts empty of runs, so invoke first seeds what the event needs:
  map, reduce   prepare runs for the event's queryId with --query, and for
                reduce every batch the event does not list as failed is mapped;
  api GET       the search for the path's id, in the path's namespace, runs
                to completion first.
The handler's output is printed on stdout; an error prints Lambda's error
envelope ({"errorType", "errorMessage"}) and exits 1.

flags:
`

// invokeCommand is `globalsearch invoke`.
func invokeCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet("invoke", env)
	fs.Usage = func() { fmt.Fprint(fs.Output(), invokeHelp); fs.PrintDefaults() }
	eventFile := fs.String("event", "", "event file (JSON) to invoke the handler with (required)")
	indexFile := fs.String("index", "testdata/sample-index.json", "index file (JSON) to load into the in-memory store")
	seedQuery := fs.String("query", "What are the main themes across Veloria's development over the decade?", "query of the run seeded for map, reduce and api GET events")
	var verbose bool
	registerVerbose(fs, &verbose)
	var model modelOptions
	model.register(fs)
	switch {
	case len(args) == 0:
		fs.SetOutput(env.stderr)
		fs.Usage()
		return &usageError{"invoke needs a function name"}
	case args[0] == "-h" || args[0] == "--help":
		fs.Usage()
		return errHelp
	}
	name := args[0]
	if err := parseQuiet(fs, args[1:]); err != nil {
		return err
	}
	if *eventFile == "" {
		return &usageError{"--event is required"}
	}
	payload, err := os.ReadFile(*eventFile)
	if err != nil {
		return err
	}
	if err := checkEventShape(name, *eventFile, payload); err != nil {
		return err
	}
	idx, fileNamespace, err := openIndexFile(*indexFile, "")
	if err != nil {
		return err
	}
	s := idx.Store
	defaults, err := requestDefaults(env, fileNamespace, model.spec)
	if err != nil {
		return err
	}
	logOut := io.Discard
	if verbose {
		logOut = env.stderr
	}
	engine := &globalsearch.Engine{Index: idx, Runs: s, MaxBatches: workflow.DefaultMaxBatches, Logger: slog.New(slog.NewJSONHandler(logOut, nil)),
		ModelID: strings.TrimSpace(model.spec)} // the calibrated rates follow the model (docs/contract.md#tokenizer)
	if name != "prepare" {
		if engine.Model, err = model.open(ctx, env); err != nil {
			return err
		}
	}
	// As deployed, prepare holds maxCostUsd and reduce prices the result
	// with the prices the flags or GRAPHRAG_*_PRICE_* give (docs/contract.md#cost).
	if err := model.resolve(env); err != nil {
		return err
	}
	if engine.Prices, err = model.prices(env); err != nil {
		return err
	}
	inv := &invoker{ctx: ctx, env: env, store: s, engine: engine,
		handlers: &workflow.Handlers{Engine: engine, Defaults: defaults}, seedQuery: *seedQuery}

	fn, opts, err := inv.handler(name, payload)
	if err != nil {
		return err
	}
	out, err := lambda.NewHandlerWithOptions(fn, opts...).Invoke(ctx, payload)
	if err != nil {
		envelope, _ := json.Marshal(map[string]string{"errorType": workflow.ErrorType(err), "errorMessage": err.Error()})
		fmt.Fprintln(env.stdout, string(envelope))
		return fmt.Errorf("%s: %w", workflow.ErrorType(err), err)
	}
	fmt.Fprintln(env.stdout, string(out))
	return nil
}

// invoker seeds the in-memory store through the same handlers.
type invoker struct {
	ctx       context.Context
	env       *cliEnv
	store     *memstore.Store
	engine    *globalsearch.Engine
	handlers  *workflow.Handlers
	seedQuery string
}

// handler is the handler of function name and its Lambda options, with
// the store seeded for payload.
func (inv *invoker) handler(name string, payload []byte) (fn any, opts []lambda.Option, err error) {
	opts = workflow.Options()
	switch name {
	case "prepare":
		fn = inv.handlers.Prepare
	case "map":
		fn = inv.handlers.Map
		err = inv.seedMap(payload)
	case "reduce":
		fn = inv.handlers.Reduce
		err = inv.seedReduce(payload)
	case "api":
		fn = (&api.Handler{Runs: inv.store, Starter: &localStarter{inv}, Defaults: inv.handlers.Defaults,
			Prices: inv.engine.Prices, Logger: inv.engine.Logger}).Handle
		opts = nil // API Gateway events gain fields over time; Lambda does not reject them either
		err = inv.seedAPI(payload)
	default:
		return nil, nil, &usageError{fmt.Sprintf("unknown function %q: prepare, map, reduce or api", name)}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("seed the local store: %w", err)
	}
	return fn, opts, nil
}

func (inv *invoker) prepare(queryID string) (workflow.PrepareOutput, error) {
	req, _ := json.Marshal(map[string]string{"query": inv.seedQuery, "queryId": queryID})
	fmt.Fprintf(inv.env.stderr, "invoke: seeding: prepare %s\n", queryID)
	return inv.handlers.Prepare(inv.ctx, workflow.PrepareInput{Request: req})
}

func (inv *invoker) seedMap(payload []byte) error {
	var in workflow.MapInput
	if err := json.Unmarshal(payload, &in); err != nil {
		return err
	}
	_, err := inv.prepare(in.QueryID)
	return err
}

func (inv *invoker) seedReduce(payload []byte) error {
	var in workflow.ReduceInput
	if err := json.Unmarshal(payload, &in); err != nil {
		return err
	}
	out, err := inv.prepare(in.QueryID)
	if err != nil {
		return err
	}
	failed := map[int]bool{}
	for _, r := range in.MapResults {
		failed[r.BatchIndex] = r.Failed
	}
	for _, i := range out.BatchIndexes {
		if failed[i] {
			continue
		}
		fmt.Fprintf(inv.env.stderr, "invoke: seeding: map batch %d\n", i)
		if _, err := inv.handlers.Map(inv.ctx, workflow.MapInput{QueryID: in.QueryID, BatchIndex: i, Attempt: 1}); err != nil {
			return err
		}
	}
	return nil
}

func (inv *invoker) seedAPI(payload []byte) error {
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(payload, &req); err != nil {
		return err
	}
	id := req.PathParameters["id"]
	method := req.RequestContext.HTTP.Method
	if (method != "GET" && method != "DELETE") || id == "" {
		return nil
	}
	seed := map[string]string{"query": inv.seedQuery, "queryId": id}
	// The run is the path's namespace's, or the GET would not find it.
	if ns := req.PathParameters["namespace"]; ns != "" {
		seed["namespace"] = ns
	}
	raw, _ := json.Marshal(seed)
	p, err := globalsearch.ParseRequest(raw, inv.handlers.Defaults)
	if err != nil {
		return err
	}
	if method == "DELETE" {
		// A recorded request not yet run: the DELETE has a running query
		// to cancel (docs/contract.md#cancel).
		fmt.Fprintf(inv.env.stderr, "invoke: seeding: record %s\n", id)
		_, _, err = globalsearch.ClaimRequest(inv.ctx, inv.store, p, p.QueryID)
		return err
	}
	fmt.Fprintf(inv.env.stderr, "invoke: seeding: search %s\n", id)
	_, err = inv.engine.Search(inv.ctx, p)
	return err
}

// localStarter is the in-process twin of execution.Starter: it runs the
// whole search at once (the state machine's steps, in Engine.Search).
type localStarter struct{ inv *invoker }

func (l *localStarter) Start(ctx context.Context, name string, input []byte) error {
	p, err := globalsearch.ParseRequest(input, l.inv.handlers.Defaults)
	if err != nil {
		return err
	}
	res, err := l.inv.engine.Search(ctx, p)
	fmt.Fprintf(l.inv.env.stderr, "invoke: local starter ran %s in process: status %s\n", name, strconv.Quote(string(res.Status)))
	if err != nil && res.Status != globalsearch.StatusFailed {
		return err
	}
	return nil
}

// Execution reports a local run: the in-process search is over once
// Start returns, so a planned run has succeeded or failed.
func (l *localStarter) Execution(ctx context.Context, name string) (string, string, error) {
	_, err := l.inv.store.Plan(ctx, name)
	switch {
	case errors.Is(err, globalsearch.ErrNotFound):
		return "", "", nil
	case err != nil:
		return "", "", err
	}
	return "SUCCEEDED", "", nil
}

// Stop has nothing to stop: the in-process search is over once Start
// returns (docs/contract.md#cancel).
func (l *localStarter) Stop(context.Context, string, string) error { return nil }
