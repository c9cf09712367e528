package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	// The CLI packs prompts, so it counts with the exact vocabularies.
	_ "github.com/graphrag-global/graphrag-global/shared/tokens/bpe"
)

// searchFlags are the flags run and plan share; they map one to one onto
// the request fields of docs/contract.md#request.
type searchFlags struct {
	index                                                           indexOptions
	model                                                           modelOptions
	cache                                                           cacheOptions
	prompts                                                         promptOptions
	query                                                           string
	namespace                                                       string
	level                                                           cmdutil.LevelFlags
	calls                                                           cmdutil.CallFlags
	responseType                                                    string
	batching                                                        string
	reduceMode                                                      string
	standing                                                        string
	tokenizer                                                       string
	mapBudget, reduceBudget, mapReserve, reduceReserve, concurrency int
	autoConcurrency                                                 bool // --concurrency auto (registerConcurrency)
	seed                                                            int64
	maxMapTextMB                                                    int64
	maxModelCalls, maxMapTokens                                     int
	maxCostUSD                                                      float64
	selection, ratingModel                                          string
	ratingThreshold                                                 int
	noShuffle                                                       bool
	standingReset                                                   bool
	jsonOut                                                         bool
	verbose                                                         bool
	set                                                             map[string]bool
}

// intFlag is the flag of an integer request field: its value, where the
// request takes it and its default, which the help text shows as this
// environment resolves it (GRAPHRAG_*, docs/contract.md#request).
type intFlag struct {
	name, field, what string
	value             func(*searchFlags) *int
	request           func(*globalsearch.Request) **int
	def               func(globalsearch.Defaults) int
}

var intFlags = []intFlag{
	{"map-budget", "mapTokenBudget", "map token budget",
		func(f *searchFlags) *int { return &f.mapBudget }, func(r *globalsearch.Request) **int { return &r.MapTokenBudget },
		func(d globalsearch.Defaults) int { return d.MapTokenBudget }},
	{"reduce-budget", "reduceTokenBudget", "reduce token budget",
		func(f *searchFlags) *int { return &f.reduceBudget }, func(r *globalsearch.Request) **int { return &r.ReduceTokenBudget },
		func(d globalsearch.Defaults) int { return d.ReduceTokenBudget }},
	{"map-reserve", "mapOutputReserve", "map output reserve",
		func(f *searchFlags) *int { return &f.mapReserve }, func(r *globalsearch.Request) **int { return &r.MapOutputReserve },
		func(d globalsearch.Defaults) int { return d.MapOutputReserve }},
	{"reduce-reserve", "reduceOutputReserve", "reduce output reserve",
		func(f *searchFlags) *int { return &f.reduceReserve }, func(r *globalsearch.Request) **int { return &r.ReduceOutputReserve },
		func(d globalsearch.Defaults) int { return d.ReduceOutputReserve }},
}

// registerConcurrency registers --concurrency: a number, the request's
// mapConcurrency (calls), or "auto", which leaves the request's to its
// default and has run and mcp adapt the limit to the model's throttling
// (docs/contract.md#auto-concurrency). The request refuses a number below
// 1, naming mapConcurrency. The help shows the default in effect.
func registerConcurrency(fs *flag.FlagSet, calls *int, auto *bool, d globalsearch.Defaults) {
	fs.Var(cmdutil.IntOrAuto{N: calls, Auto: auto, What: "map calls"}, "concurrency",
		defaultHelp("map calls in flight at most", "mapConcurrency", d.MapConcurrency)+
			fmt.Sprintf(`; "auto" (run, mcp): adapt the limit to the model's throttling, up to %d`, globalsearch.DefaultAutoCeiling))
}

// defaultHelp is the help text of a flag whose default a GRAPHRAG_*
// variable sets: the default in effect, and the variable.
func defaultHelp(what, field string, value any) string {
	return fmt.Sprintf("%s (default %v; $%s sets the default)", what, value, globalsearch.DefaultVariable(field))
}

// parseSearchFlags parses the search flags of command name and, for a
// command that adds flags of its own, those extra registers.
func parseSearchFlags(name string, env *cliEnv, args []string, extra ...func(*flag.FlagSet)) (*searchFlags, error) {
	f := &searchFlags{}
	fs := newFlagSet(name, env)
	f.register(fs, helpDefaults(env))
	for _, register := range extra {
		register(fs)
	}
	set, err := cmdutil.Parse(fs, args)
	if err != nil {
		return nil, err
	}
	f.set = set
	if err := f.checkLimits(); err != nil {
		return nil, err
	}
	switch {
	case f.set["rating-model"] && f.selection != globalsearch.SelectionDynamic:
		return nil, &usageError{Msg: "--rating-model rates communities only with --selection dynamic"}
	case f.set["max-cost"] && !(f.maxCostUSD > 0):
		return nil, &usageError{Msg: "--max-cost must be a positive number of US dollars"}
	case f.set["seed"] && f.noShuffle:
		return nil, &usageError{Msg: "--seed and --no-shuffle exclude each other"}
	}
	if err := f.checkFiles(); err != nil {
		return nil, err
	}
	return f, nil
}

// checkLimits refuses the plan limits a command line may set but not
// sensibly: every command that plans (run, plan, serve) shares them.
func (f *searchFlags) checkLimits() error {
	switch {
	case f.set["max-map-text-mb"] && f.maxMapTextMB <= 0:
		return &usageError{Msg: "--max-map-text-mb must be a positive number of MiB"}
	case f.set["max-model-calls"] && f.maxModelCalls <= 0:
		return &usageError{Msg: "--max-model-calls must be a positive number of model calls"}
	}
	return nil
}

// checkFiles checks the cache flags and loads the prompts directory: the
// user's own configuration, refused at once, before the index is read.
func (f *searchFlags) checkFiles() error {
	if err := f.cache.check(f.set); err != nil {
		return err
	}
	if err := f.prompts.check(f.set); err != nil {
		return err
	}
	_, err := f.prompts.load()
	return err
}

// helpDefaults are the defaults the help text shows: this environment's.
// A bad GRAPHRAG_* variable shows the contract's here and is reported when
// the request is resolved, in the order it always was.
func helpDefaults(env *cliEnv) globalsearch.Defaults {
	d, err := globalsearch.DefaultsFromEnv(env.lookupEnv)
	if err != nil {
		return globalsearch.SpecDefaults
	}
	return d
}

func (f *searchFlags) register(fs *flag.FlagSet, d globalsearch.Defaults) {
	f.index.register(fs)
	f.model.register(fs)
	f.cache.register(fs)
	f.prompts.register(fs)
	fs.StringVar(&f.query, "query", "", "the question to answer (required)")
	// Not d.Namespace: an index file's namespace wins over
	// GRAPHRAG_NAMESPACE, and a table's default is the contract's.
	fs.StringVar(&f.namespace, "namespace", "", fmt.Sprintf("namespace to search (default: the index file's; with --graphrag the one the folder is read into, %q; with --table $GRAPHRAG_NAMESPACE, else %q)",
		globalsearch.SpecDefaults.Namespace, globalsearch.SpecDefaults.Namespace))
	f.level.Register(fs, d.CommunityLevel, globalsearch.DefaultVariable("communityLevel"))
	fs.StringVar(&f.tokenizer, "tokenizer", "", "how budgets count tokens: "+strings.Join(tokens.Names, ", ")+
		" (default: by --model, o200k or cl100k for OpenAI models, calibrated for others, estimate offline; $"+globalsearch.DefaultVariable("tokenizer")+" sets the default)")
	fs.StringVar(&f.responseType, "response-type", "", fmt.Sprintf("the form of the answer, free text (default %q)", globalsearch.DefaultResponseType))
	for _, fl := range intFlags {
		fs.IntVar(fl.value(f), fl.name, 0, defaultHelp(fl.what, fl.field, fl.def(d)))
	}
	registerConcurrency(fs, &f.concurrency, &f.autoConcurrency, d)
	fs.Int64Var(&f.seed, "seed", 0, "shuffle seed (default: random, recorded in the result)")
	fs.BoolVar(&f.noShuffle, "no-shuffle", false, "keep summaries in id order")
	fs.StringVar(&f.batching, "batching", d.Batching, `how batches are ordered and cut: "greedy" (shuffle, then fill each batch) or "stable" (a re-built index re-maps only the batches a change touched); $`+globalsearch.DefaultVariable("batching")+` sets the default`)
	f.registerReduceMode(fs, d)
	f.calls.Register(fs, d)
	fs.Int64Var(&f.maxMapTextMB, "max-map-text-mb", 0, fmt.Sprintf("refuse plans whose map texts exceed this many MiB (default %d)", globalsearch.DefaultMaxMapTextBytes>>20))
	fs.IntVar(&f.maxModelCalls, "max-model-calls", 0, defaultHelp("refuse plans that may make more model calls", "maxModelCalls", d.MaxModelCalls))
	fs.StringVar(&f.standing, "standing", "", "name of the standing question this run is one run of: the result reports what changed since its last run (its record is kept in the cache directory)")
	fs.BoolVar(&f.standingReset, "standing-reset", false, "with --standing, start its record afresh: the stored one (unreadable, or of another question or settings) is not compared, and this run's replaces it")
	fs.StringVar(&f.selection, "selection", "level", `"level" maps --level; "dynamic" rates communities top-down and maps the relevant ones`)
	fs.IntVar(&f.ratingThreshold, "rating-threshold", 0, fmt.Sprintf("with --selection dynamic, the score (1-5) from which a community is relevant (default %d)", globalsearch.DefaultRatingThreshold))
	fs.StringVar(&f.ratingModel, "rating-model", "", "with --selection dynamic, the model that rates communities, as --model names one (default: --model)")
	fs.IntVar(&f.maxMapTokens, "max-map-tokens", 0, defaultHelp("the most estimated map input tokens --level auto may choose", "maxMapInputTokens", d.MaxMapInputTokens))
	fs.Float64Var(&f.maxCostUSD, "max-cost", 0, defaultHelp("refuse plans whose worst case costs more USD at the prices given", "maxCostUsd", d.MaxCostUSD))
	fs.BoolVar(&f.jsonOut, "json", false, "print the whole result as JSON")
	registerVerbose(fs, &f.verbose)
}

// registerReduceMode is --reduce-mode, which run and plan send as the
// request's reduceMode and serve and mcp take as their default
// (docs/contract.md#reduce-rounds).
func (f *searchFlags) registerReduceMode(fs *flag.FlagSet, d globalsearch.Defaults) {
	fs.StringVar(&f.reduceMode, "reduce-mode", d.ReduceMode, `how reduce meets its budget: "single" (one call over the answers that fit) or "tree" (rounds of intermediate calls until one prompt holds every useful answer); $`+globalsearch.DefaultVariable("reduceMode")+` sets the default`)
}

// reduceModeDefault makes a given --reduce-mode, and the call settings
// given (cmdutil.CallFlags), the default of every request (serve, mcp),
// checked by the request fields' rules.
func (f *searchFlags) reduceModeDefault(d *globalsearch.Defaults) error {
	if !f.set["reduce-mode"] {
		return f.calls.Defaults(f.set, d)
	}
	p, err := globalsearch.Request{Query: "reduce mode", ReduceMode: &f.reduceMode}.Params(*d)
	d.ReduceMode = p.ReduceMode
	if err != nil {
		return err
	}
	return f.calls.Defaults(f.set, d)
}

// params validates the flags as a request, through the same path as JSON.
func (f *searchFlags) params(env *cliEnv, fileNamespace string) (globalsearch.Params, error) {
	defaults, err := globalsearch.FileDefaults(env.lookupEnv, fileNamespace, f.model.mapSpec())
	if err != nil {
		return globalsearch.Params{}, err
	}
	// In one process the CLI is the deployment: its flag sets the ceiling
	// (docs/contract.md#state-machine) rather than lowering one.
	if f.set["max-model-calls"] {
		defaults.MaxModelCalls = f.maxModelCalls
	}
	// Likewise the cost ceiling (docs/contract.md#cost-ceiling).
	if f.set["max-cost"] {
		defaults.MaxCostUSD = f.maxCostUSD
	}
	if defaults.Prompts, err = f.prompts.load(); err != nil {
		return globalsearch.Params{}, err
	}
	req := globalsearch.Request{Query: f.query, Namespace: f.namespace}
	setIfGiven(f.set, "tokenizer", &req.Tokenizer, &f.tokenizer)
	setIfGiven(f.set, "response-type", &req.ResponseType, &f.responseType)
	setIfGiven(f.set, "standing", &req.StandingQuery, &f.standing)
	setIfGiven(f.set, "standing-reset", &req.StandingReset, &f.standingReset)
	if req.CommunityLevel, err = f.level.Level(f.set); err != nil {
		return globalsearch.Params{}, err
	}
	for _, fl := range intFlags {
		setIfGiven(f.set, fl.name, fl.request(&req), fl.value(f))
	}
	if !f.autoConcurrency {
		setIfGiven(f.set, "concurrency", &req.MapConcurrency, &f.concurrency)
	}
	setIfGiven(f.set, "max-map-tokens", &req.MaxMapInputTokens, &f.maxMapTokens)
	setIfGiven(f.set, "seed", &req.ShuffleSeed, &f.seed)
	setIfGiven(f.set, "selection", &req.Selection, &f.selection)
	setIfGiven(f.set, "rating-threshold", &req.RatingThreshold, &f.ratingThreshold)
	if f.noShuffle {
		shuffle := false
		req.Shuffle = &shuffle
	}
	setIfGiven(f.set, "batching", &req.Batching, &f.batching)
	setIfGiven(f.set, "reduce-mode", &req.ReduceMode, &f.reduceMode)
	f.calls.Request(f.set, &req)
	return req.Params(defaults)
}

// setIfGiven points a request field at its flag's value when the flag was
// given (set), so that a flag left out leaves the field to the default.
func setIfGiven[T any](set map[string]bool, name string, field **T, value *T) {
	if set[name] {
		*field = value
	}
}
