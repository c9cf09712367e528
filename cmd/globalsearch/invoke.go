package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
	"github.com/graphrag-global/graphrag-global/shared/lambdalocal"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

const invokeHelp = `usage: globalsearch invoke <prepare|map|reduce|api> --event FILE [--index FILE] [--model offline] [--query TEXT] [-v]

Runs one Lambda handler on an event file (events/*.json) through
aws-lambda-go's own JSON path (lambda.NewHandler(...).Invoke), the way
Lambda runs it, with local adapters instead of AWS: the index file in an
in-memory store (default testdata/sample-index.json), the model --model
names (default offline), and for api the local execution stand-in serve
uses, which runs each search in process (shared/lambdalocal). No Docker, no network with the offline model.

The store starts empty of runs, so invoke first seeds what the event needs:
  map, reduce   prepare runs for the event's queryId with --query, and for
                reduce every batch the event does not list as failed is mapped;
  api GET       the search for the path's id, in the path's namespace, runs
                to completion first;
  api DELETE    the path's query is recorded, not yet run.
A POST's search runs to completion before invoke exits.
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
	seedQuery := fs.String("query", lambdalocal.SampleQuery, "query of the run seeded for map, reduce and api GET events")
	var verbose bool
	registerVerbose(fs, &verbose)
	var model modelOptions
	model.register(fs)
	switch {
	case len(args) == 0:
		fs.SetOutput(env.stderr)
		fs.Usage()
		return &usageError{Msg: "invoke needs a function name"}
	case args[0] == "-h" || args[0] == "--help":
		fs.Usage()
		return cmdutil.ErrHelp
	}
	name := args[0]
	if err := cmdutil.ParseQuiet(fs, args[1:]); err != nil {
		return err
	}
	if *eventFile == "" {
		return &usageError{Msg: "--event is required"}
	}
	payload, err := os.ReadFile(*eventFile)
	if err != nil {
		return err
	}
	if err := lambdalocal.CheckEvent(name, *eventFile, payload); err != nil {
		return invokeRefusal(err)
	}
	idx, fileNamespace, err := indexsource.OpenFile(*indexFile, "")
	if err != nil {
		return err
	}
	s := idx.Store
	defaults, err := globalsearch.FileDefaults(env.lookupEnv, fileNamespace, model.spec)
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
	if engine.Prices, err = model.prices(env); err != nil {
		return err
	}
	cfg := lambdalocal.Config{Engine: engine, Runs: s, Defaults: defaults, SeedQuery: *seedQuery, Progress: env.stderr}
	out, err := lambdalocal.Invoke(ctx, cfg, name, *eventFile, payload)
	if out != nil {
		fmt.Fprintln(env.stdout, string(out))
	}
	return invokeRefusal(err)
}

// invokeRefusal makes an invocation lambdalocal refused a usage error (exit 2).
func invokeRefusal(err error) error {
	var refused *lambdalocal.EventError
	if errors.As(err, &refused) {
		return &usageError{Msg: refused.Message}
	}
	return err
}
