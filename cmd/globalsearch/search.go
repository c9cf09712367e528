package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
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
		return dircache.New(f.cacheDir, 0, nil), nil
	case env.userCacheDir == nil:
		return nil, nil
	}
	dir, err := env.userCacheDir()
	if err != nil {
		return nil, &usageError{fmt.Sprintf("no user cache directory (%v): give --cache DIR or --no-cache", err)}
	}
	return dircache.New(filepath.Join(dir, "graphrag-global", "map-answers"), 0, nil), nil
}

func runCommand(ctx context.Context, env *cliEnv, args []string) error {
	f, err := parseSearchFlags("run", env, args, true)
	if err != nil {
		return err
	}
	e, p, err := f.engine(ctx, env, true)
	if err != nil {
		return err
	}
	if env.stderrIsTTY && !f.verbose {
		var mu sync.Mutex
		e.Progress = func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(env.stderr, "\rmap batches %d/%d", done, total)
			if done == total {
				fmt.Fprintln(env.stderr)
			}
		}
	}
	res, err := e.Search(ctx, p)
	if f.jsonOut && res.QueryID != "" {
		if werr := writeJSON(env.stdout, res); werr != nil {
			return werr
		}
	} else if err == nil {
		fmt.Fprintln(env.stdout, terminalText(res.Answer))
		fmt.Fprintln(env.stdout)
		fmt.Fprintln(env.stdout, terminalText(statusLine(res, &f.model)))
		if res.Status == globalsearch.StatusPartial {
			printMapErrors(env.stderr, res.MapErrors)
		}
	}
	return err
}

// printMapErrors says why the batches of a partial run failed, one line
// per distinct message (the JSON result has one entry per batch).
func printMapErrors(w io.Writer, failures []globalsearch.BatchFailure) {
	for _, g := range globalsearch.GroupFailures(failures) {
		fmt.Fprintf(w, "map %s\n", terminalText(g.String()))
	}
}

// emptyNamespaceNote says plainly that a search found no data at all,
// which a no_results status alone does not.
func emptyNamespaceNote(namespace string, available []string) string {
	note := fmt.Sprintf("namespace %q holds no summaries", namespace)
	if len(available) > 0 {
		note += "; namespaces that exist: " + strings.Join(available, ", ")
	}
	return note
}

// levelList prints the levels a search that selected nothing lists; a
// full list may be the lowest of many (docs/contract.md#selection).
func levelList(levels []int) string {
	list := fmt.Sprint(levels)
	if len(levels) >= globalsearch.MaxListedLevels {
		list += fmt.Sprintf(" (the lowest %d)", len(levels))
	}
	return list
}

func statusLine(res globalsearch.Result, model *modelOptions) string {
	d := res.Diagnostics
	parts := []string{
		fmt.Sprintf("status %s", res.Status),
		fmt.Sprintf("%d summaries", d.SummaryCount),
		fmt.Sprintf("%d batches", d.BatchCount),
	}
	if res.FailedMapBatches > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", res.FailedMapBatches))
	}
	parts = append(parts,
		fmt.Sprintf("%d model calls", d.ModelCalls),
	)
	if d.Map.CacheHits > 0 {
		parts = append(parts, fmt.Sprintf("%d map answers from cache", d.Map.CacheHits))
	}
	parts = append(parts,
		fmt.Sprintf("tokens in %d out %d", d.InputTokens, d.OutputTokens),
		fmt.Sprintf("seed %d", d.ShuffleSeed),
		fmt.Sprintf("%s in %s", res.QueryID, d.FinishedAt.Sub(d.StartedAt).Round(1e6)))
	if len(d.AvailableLevels) > 0 {
		parts = append(parts, "levels that exist: "+levelList(d.AvailableLevels))
	}
	if d.EmptyNamespace {
		parts = append(parts, emptyNamespaceNote(res.Namespace, d.AvailableNamespaces))
	}
	if usd, ok := model.cost(d.InputTokens, d.OutputTokens); ok {
		parts = append(parts, fmt.Sprintf("cost ~$%.4f", usd))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// planOutput is what `plan --json` prints.
type planOutput struct {
	SummaryCount            int    `json:"summaryCount"`
	BatchCount              int    `json:"batchCount"`
	MapPromptBudget         int    `json:"mapPromptBudget"`
	ReducePromptBudget      int    `json:"reducePromptBudget"`
	MapSkeleton             string `json:"mapSkeleton"`
	ShuffleSeed             int64  `json:"shuffleSeed"`
	EstimatedMapInputTokens int    `json:"estimatedMapInputTokens"`
	MaxModelCalls           int    `json:"maxModelCalls"`
	// ModelCallCeiling is the most the run may make (docs/contract.md#model-call-ceiling): a plan
	// over it is refused, so MaxModelCalls never exceeds it.
	ModelCallCeiling int `json:"modelCallCeiling"`
	// MapMode is how a deployment's state machine would run the plan
	// (shared/workflow MapMode): inline or distributed.
	MapMode string `json:"mapMode"`
	globalsearch.IndexNotes
	Batches []plannedBatch `json:"batches"`
}

// newPlanOutput describes a plan as `plan` prints it.
func newPlanOutput(plan globalsearch.Plan, p globalsearch.Params) planOutput {
	out := planOutput{
		SummaryCount: plan.SummaryCount, BatchCount: len(plan.Batches),
		MapPromptBudget: p.MapPromptBudget(), ReducePromptBudget: p.ReducePromptBudget(),
		MapSkeleton: globalsearch.DefaultPrompts().Map.Skeleton(p.Query), ShuffleSeed: p.ShuffleSeed,
		IndexNotes: plan.IndexNotes,
		Batches:    make([]plannedBatch, len(plan.Batches)),
	}
	for i, b := range plan.Batches {
		out.Batches[i] = plannedBatch{CommunityIDs: b.CommunityIDs, EstimatedTokens: b.EstimatedTokens, Content: b.Content}
		out.EstimatedMapInputTokens += b.EstimatedTokens
	}
	out.MaxModelCalls = globalsearch.MostModelCalls(len(plan.Batches))
	return out
}

// cost is the most the plan can cost at the model's prices, one attempt
// per call, when prices are set.
func (out planOutput) cost(model *modelOptions, p globalsearch.Params) (float64, bool) {
	maxOut := out.BatchCount*p.MapOutputReserve + p.ReduceOutputReserve
	return model.estimateCost(out.EstimatedMapInputTokens+p.ReducePromptBudget(), maxOut)
}

type plannedBatch struct {
	CommunityIDs    []string `json:"communityIds"`
	EstimatedTokens int      `json:"estimatedTokens"`
	Content         string   `json:"content"`
}

func planCommand(ctx context.Context, env *cliEnv, args []string) error {
	f, err := parseSearchFlags("plan", env, args, true)
	if err != nil {
		return err
	}
	e, p, err := f.engine(ctx, env, false)
	if err != nil {
		return err
	}
	// plan calls no model, but a bad --model or price must fail here as it
	// would in run, and prices may come from the environment.
	if _, err := parseModelSpec(f.model.spec); err != nil {
		return err
	}
	if err := f.model.resolve(env); err != nil {
		return err
	}
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return err
	}
	out := newPlanOutput(plan, p)
	out.ModelCallCeiling = p.MaxModelCalls
	out.MapMode = workflow.MapMode(len(plan.Batches), 0)
	if f.jsonOut {
		return writePlanJSON(env.stdout, out)
	}
	fmt.Fprintf(env.stdout, "%d summaries -> %d map batches (map prompt budget %d, reduce prompt budget %d, seed %d)\n",
		out.SummaryCount, out.BatchCount, out.MapPromptBudget, out.ReducePromptBudget, out.ShuffleSeed)
	for i, b := range out.Batches {
		fmt.Fprintf(env.stdout, "  batch %d: %d tokens, communities %s\n", i, b.EstimatedTokens, terminalText(strings.Join(b.CommunityIDs, ", ")))
	}
	fmt.Fprintf(env.stdout, "estimated map input %d tokens; at most %d model calls (ceiling %d)\n", out.EstimatedMapInputTokens, out.MaxModelCalls, out.ModelCallCeiling)
	fmt.Fprintf(env.stdout, "on AWS: %s\n", awsMode(out.MapMode, len(plan.Batches)))
	if usd, ok := out.cost(&f.model, p); ok {
		fmt.Fprintf(env.stdout, "estimated cost at most ~$%.4f (one attempt per call)\n", usd)
	}
	if len(out.AvailableLevels) > 0 {
		fmt.Fprintf(env.stdout, "no summary at level %s; levels that exist: %s\n", p.CommunityLevel, levelList(out.AvailableLevels))
	}
	if out.EmptyNamespace {
		fmt.Fprintln(env.stdout, terminalText(emptyNamespaceNote(p.Namespace, out.AvailableNamespaces)))
	}
	return nil
}

func tokensCommand(_ context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 {
		return &usageError{"tokens takes no arguments; it reads standard input"}
	}
	data, err := io.ReadAll(env.stdin)
	if err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	fmt.Fprintln(env.stdout, strconv.Itoa(tokens.Estimate(string(data))))
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// planJSONTail is how writeJSON ends a planOutput whose batches are an
// empty list: batches is its last field.
const planJSONTail = "[]\n}\n"

// writePlanJSON writes out exactly as writeJSON does, one batch at a time:
// encoding the whole plan at once held every batch's content twice more
// (encoded, then indented, each in a buffer grown by doubling).
func writePlanJSON(w io.Writer, out planOutput) error {
	batches := out.Batches
	if len(batches) == 0 {
		return writeJSON(w, out)
	}
	out.Batches = []plannedBatch{}
	var head bytes.Buffer
	if err := writeJSON(&head, out); err != nil {
		return err
	}
	if !bytes.HasSuffix(head.Bytes(), []byte(planJSONTail)) {
		return errors.New("plan output: batches must be the last field")
	}
	bw := bufio.NewWriter(w)
	bw.Write(head.Bytes()[:head.Len()-len(planJSONTail)])
	bw.WriteString("[\n")
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetIndent("    ", "  ") // an element of a list in the top-level object
	enc.SetEscapeHTML(false)
	for i, b := range batches {
		one.Reset()
		if err := enc.Encode(b); err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		if i < len(batches)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]\n}\n")
	return bw.Flush()
}

// awsMode says how a deployment would run a plan of n batches.
func awsMode(mode string, n int) string {
	line := fmt.Sprintf("%s Map (the inline Map runs at most %d batches)", mode, workflow.InlineMaxBatches)
	if n > workflow.DefaultMaxBatches {
		line += fmt.Sprintf("; refused by a deployment with the default MaxBatches %d", workflow.DefaultMaxBatches)
	}
	return line
}
