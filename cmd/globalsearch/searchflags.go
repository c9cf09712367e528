package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/mapcache"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// searchFlags are the flags run and plan share; they map one to one onto
// the request fields of docs/contract.md#request.
type searchFlags struct {
	index                                                           indexOptions
	model                                                           modelOptions
	query                                                           string
	namespace                                                       string
	level                                                           string
	responseType                                                    string
	cacheDir                                                        string
	noCache                                                         bool
	mapBudget, reduceBudget, mapReserve, reduceReserve, concurrency int
	seed                                                            int64
	maxMapTextMB                                                    int64
	maxModelCalls                                                   int
	noShuffle                                                       bool
	jsonOut                                                         bool
	verbose                                                         bool
	set                                                             map[string]bool
}

func parseSearchFlags(name string, env *cliEnv, args []string, withModel bool) (*searchFlags, error) {
	f := &searchFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	f.index.register(fs)
	if withModel {
		f.model.register(fs)
		fs.StringVar(&f.cacheDir, "cache", "", "map-answer cache directory (default: graphrag-global/map-answers under the user's cache directory)")
		fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the map-answer cache")
	}
	fs.StringVar(&f.query, "query", "", "the question to answer (required)")
	fs.StringVar(&f.namespace, "namespace", "", "namespace to search (default: the index file's, else \"default\")")
	fs.StringVar(&f.level, "level", "leaf", `community level: "leaf" or a level number (0 is the coarsest)`)
	fs.StringVar(&f.responseType, "response-type", "", `the form of the answer, free text (default "multiple paragraphs")`)
	fs.IntVar(&f.mapBudget, "map-budget", 0, "map token budget (default 8000)")
	fs.IntVar(&f.reduceBudget, "reduce-budget", 0, "reduce token budget (default 8000)")
	fs.IntVar(&f.mapReserve, "map-reserve", 0, "map output reserve (default 512)")
	fs.IntVar(&f.reduceReserve, "reduce-reserve", 0, "reduce output reserve (default 1024)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "map calls in flight at most (default 4)")
	fs.Int64Var(&f.seed, "seed", 0, "shuffle seed (default: random, recorded in the result)")
	fs.BoolVar(&f.noShuffle, "no-shuffle", false, "keep summaries in id order")
	fs.Int64Var(&f.maxMapTextMB, "max-map-text-mb", 0, "refuse plans whose map texts exceed this many MiB (default 256)")
	fs.IntVar(&f.maxModelCalls, "max-model-calls", 0, "refuse plans that may make more model calls (default $GRAPHRAG_MAX_MODEL_CALLS, else 500)")
	fs.BoolVar(&f.jsonOut, "json", false, "print the whole result as JSON")
	fs.BoolVar(&f.verbose, "v", false, "log each step as JSON on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, &usageError{"help requested"}
		}
		return nil, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if f.set["max-map-text-mb"] && f.maxMapTextMB <= 0 {
		return nil, &usageError{"--max-map-text-mb must be a positive number of MiB"}
	}
	if f.set["max-model-calls"] && f.maxModelCalls <= 0 {
		return nil, &usageError{"--max-model-calls must be a positive number of model calls"}
	}
	if f.set["seed"] && f.noShuffle {
		return nil, &usageError{"--seed and --no-shuffle exclude each other"}
	}
	if err := f.checkCache(); err != nil {
		return nil, err
	}
	return f, nil
}

// requestDefaults are the defaults every command resolves a request with:
// the deployment's (GRAPHRAG_*), except that an index file's namespace wins
// over GRAPHRAG_NAMESPACE, since the file holds no other namespace.
func requestDefaults(env *cliEnv, fileNamespace string) (globalsearch.Defaults, error) {
	defaults, err := globalsearch.DefaultsFromEnv(env.lookupEnv)
	if err != nil {
		return globalsearch.Defaults{}, err
	}
	if fileNamespace != "" {
		defaults.Namespace = fileNamespace
	}
	return defaults, nil
}

// params validates the flags as a request, through the same path as JSON.
func (f *searchFlags) params(env *cliEnv, fileNamespace string) (globalsearch.Params, error) {
	defaults, err := requestDefaults(env, fileNamespace)
	if err != nil {
		return globalsearch.Params{}, err
	}
	// In one process the CLI is the deployment: its flag sets the ceiling
	// (docs/contract.md#state-machine) rather than lowering one.
	if f.set["max-model-calls"] {
		defaults.MaxModelCalls = f.maxModelCalls
	}
	req := globalsearch.Request{Query: f.query, Namespace: f.namespace}
	if f.set["response-type"] {
		req.ResponseType = &f.responseType
	}
	if f.set["level"] {
		level, err := globalsearch.ParseLevel(f.level)
		if err != nil {
			return globalsearch.Params{}, &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
		}
		req.CommunityLevel = &level
	}
	intFlag := func(name string, v int) *int {
		if f.set[name] {
			return &v
		}
		return nil
	}
	req.MapTokenBudget = intFlag("map-budget", f.mapBudget)
	req.ReduceTokenBudget = intFlag("reduce-budget", f.reduceBudget)
	req.MapOutputReserve = intFlag("map-reserve", f.mapReserve)
	req.ReduceOutputReserve = intFlag("reduce-reserve", f.reduceReserve)
	req.MapConcurrency = intFlag("concurrency", f.concurrency)
	if f.set["seed"] {
		req.ShuffleSeed = &f.seed
	}
	if f.noShuffle {
		shuffle := false
		req.Shuffle = &shuffle
	}
	return req.Params(defaults)
}

// engine wires the index, the model and an in-memory runs store.
func (f *searchFlags) engine(ctx context.Context, env *cliEnv, withModel bool) (*globalsearch.Engine, globalsearch.Params, error) {
	idx, fileNamespace, err := f.index.open(ctx, env)
	if err != nil {
		return nil, globalsearch.Params{}, err
	}
	p, err := f.params(env, fileNamespace)
	if err != nil {
		return nil, globalsearch.Params{}, err
	}
	e, err := f.newEngine(ctx, env, idx, withModel)
	if err != nil {
		return nil, globalsearch.Params{}, err
	}
	return e, p, nil
}

// newEngine is the in-process engine every command runs (run, plan, mcp):
// idx, an in-memory runs store, the map-text ceiling, -v logging and, with
// a model, the model, its id and the map-answer cache.
func (f *searchFlags) newEngine(ctx context.Context, env *cliEnv, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
	e := &globalsearch.Engine{Index: idx, Runs: memstore.New(), MaxMapTextBytes: min(f.maxMapTextMB, 1<<40) << 20}
	if f.verbose {
		e.Logger = slog.New(slog.NewJSONHandler(env.stderr, nil))
	}
	if withModel {
		var err error
		if e.Model, err = f.model.open(ctx, env); err != nil {
			return nil, err
		}
		if e.Cache, err = f.mapCache(env); err != nil {
			return nil, err
		}
		e.ModelID = strings.TrimSpace(f.model.spec)
	}
	return e, nil
}

// checkCache is the --cache/--no-cache rule of every command that has them.
func (f *searchFlags) checkCache() error {
	if f.set["cache"] && (f.noCache || f.cacheDir == "") {
		return &usageError{"--cache needs a directory and excludes --no-cache"}
	}
	return nil
}

// mapCache is the map-answer cache run uses (docs/contract.md#map-cache): --cache DIR, else
// the default directory, none with --no-cache.
func (f *searchFlags) mapCache(env *cliEnv) (globalsearch.MapCache, error) {
	switch {
	case f.noCache:
		return nil, nil
	case f.cacheDir != "":
		return mapcache.New(f.cacheDir, 0, nil), nil
	case env.userCacheDir == nil:
		return nil, nil
	}
	dir, err := env.userCacheDir()
	if err != nil {
		return nil, &usageError{fmt.Sprintf("no user cache directory (%v): give --cache DIR or --no-cache", err)}
	}
	return mapcache.New(filepath.Join(dir, "graphrag-global", "map-answers"), 0, nil), nil
}
