package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// mcpCommand serves global search to agents over the Model Context
// Protocol on standard input and output: tools global_search and
// plan_search over one index (a file or a table), with the model, prices
// and cache of the flags.
func mcpCommand(ctx context.Context, env *cliEnv, args []string) error {
	f := &searchFlags{set: map[string]bool{}}
	fs := newMCPFlagSet(f, env)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &usageError{"help requested"}
		}
		return &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.checkCache(); err != nil {
		return err
	}
	if f.index.file == "" && f.index.table == "" {
		return &usageError{"mcp needs --index FILE or --table TABLE"}
	}
	srv, err := newMCPServer(ctx, env, f)
	if err != nil {
		return err
	}
	// Standard output carries the protocol; logs go to standard error. A
	// message over the cap is answered here, and the SDK never sees it.
	out := &lockedWriter{w: env.stdout}
	in := &messageCap{r: bufio.NewReader(env.stdin), out: out, max: maxMCPMessageBytes}
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
}

// newMCPFlagSet registers mcp's flags into f: the index, the model and
// its prices, the cache, -v.
func newMCPFlagSet(f *searchFlags, env *cliEnv) *flag.FlagSet {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	f.index.register(fs)
	f.model.register(fs)
	fs.StringVar(&f.cacheDir, "cache", "", "map-answer cache directory (default: graphrag-global/map-answers under the user's cache directory)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the map-answer cache")
	fs.BoolVar(&f.verbose, "v", false, "log each step as JSON on stderr")
	fs.Int64Var(&f.seed, "seed", 0, "shuffle seed of every search (default: random per call); a fixed seed lets a repeated question reuse the map cache")
	return fs
}

// mcpTools holds what every tool call shares: the index, the model and the
// map cache.
type mcpTools struct {
	env           *cliEnv
	flags         *searchFlags
	index         globalsearch.Index
	fileNamespace string
	engine        globalsearch.Engine
}

func newMCPServer(ctx context.Context, env *cliEnv, f *searchFlags) (*mcp.Server, error) {
	idx, fileNamespace, err := f.index.open(ctx, env)
	if err != nil {
		return nil, err
	}
	e, err := f.newEngine(ctx, env, idx, true)
	if err != nil {
		return nil, err
	}
	t := &mcpTools{env: env, flags: f, index: idx, fileNamespace: fileNamespace, engine: *e}
	srv := mcp.NewServer(&mcp.Implementation{Name: "graphrag-global", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{
		Name: "global_search",
		Description: "Answer a question about a whole document collection from its GraphRAG community summaries " +
			"(map-reduce over every summary of a level). Returns the answer, its status and the communities it cites " +
			"with their claim and source-chunk ids. Best for broad questions (themes, trends, comparisons); each call " +
			"makes one model call per batch (see plan_search).",
	}, t.globalSearch)
	mcp.AddTool(srv, &mcp.Tool{
		Name: "plan_search",
		Description: "Dry run of global_search with no model call: how many map batches the question needs, " +
			"their estimated input tokens, the most model calls and, when prices are set, the most it can cost.",
	}, t.planSearch)
	return srv, nil
}

// searchInput is what both tools take. level is "leaf" or a level number,
// as a string or a number.
type searchInput struct {
	Query        string `json:"query" jsonschema:"the question to answer"`
	Namespace    string `json:"namespace,omitempty" jsonschema:"the index namespace to search (default: the index file's, else the deployment default)"`
	Level        any    `json:"level,omitempty" jsonschema:"community level: \"leaf\" (default) or a level number, 0 the coarsest"`
	ResponseType string `json:"responseType,omitempty" jsonschema:"the form of the answer, e.g. \"a bulleted list\" (default \"multiple paragraphs\")"`
}

type searchOutput struct {
	QueryID    string                  `json:"queryId"`
	Status     globalsearch.Status     `json:"status"`
	Answer     string                  `json:"answer"`
	Citations  []globalsearch.Citation `json:"citations"`
	ModelCalls int                     `json:"modelCalls"`
	CacheHits  int                     `json:"cacheHits"`
}

type planToolOutput struct {
	Summaries       int      `json:"summaries"`
	Batches         int      `json:"batches"`
	EstimatedTokens int      `json:"estimatedTokens" jsonschema:"estimated input tokens of every map call"`
	MaxModelCalls   int      `json:"maxModelCalls" jsonschema:"two attempts per map batch and two for reduce"`
	CostUSD         *float64 `json:"costUsd,omitempty" jsonschema:"the most the search can cost in USD, one attempt per call; only when prices are set"`
}

// params reads a tool's input as a request through the same path as JSON
// and the CLI, so bad input gets the message the CLI prints.
func (t *mcpTools) params(in searchInput) (globalsearch.Params, error) {
	req := map[string]any{"query": in.Query}
	if in.Namespace != "" {
		req["namespace"] = in.Namespace
	}
	switch level := in.Level.(type) {
	case nil:
	case string:
		l, err := globalsearch.ParseLevel(level)
		if err != nil {
			return globalsearch.Params{}, &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
		}
		req["communityLevel"] = l
	default:
		req["communityLevel"] = level
	}
	if in.ResponseType != "" {
		req["responseType"] = in.ResponseType
	}
	if t.flags.set["seed"] {
		req["shuffleSeed"] = t.flags.seed
	}
	data, err := json.Marshal(req)
	if err != nil {
		return globalsearch.Params{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "encode request: %w", err)
	}
	defaults, err := requestDefaults(t.env, t.fileNamespace)
	if err != nil {
		return globalsearch.Params{}, err
	}
	return globalsearch.ParseRequest(data, defaults)
}

// globalSearch runs one search. An error (bad input, a failed run) comes
// back as a tool error whose text is the CLI's message.
func (t *mcpTools) globalSearch(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, searchOutput, error) {
	p, err := t.params(in)
	if err != nil {
		return nil, searchOutput{}, err
	}
	// A store per call: the server may live for days, and nothing of one
	// call is read by another (the map cache is separate).
	e := t.engine
	e.Runs = memstore.New()
	res, err := e.Search(ctx, p)
	if err != nil {
		return nil, searchOutput{}, err
	}
	return nil, searchOutput{
		QueryID: res.QueryID, Status: res.Status, Answer: res.Answer, Citations: res.Citations,
		ModelCalls: res.Diagnostics.ModelCalls, CacheHits: res.Diagnostics.Map.CacheHits,
	}, nil
}

func (t *mcpTools) planSearch(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, planToolOutput, error) {
	p, err := t.params(in)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	e := t.engine
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	out := newPlanOutput(plan, p)
	res := planToolOutput{Summaries: out.SummaryCount, Batches: out.BatchCount,
		EstimatedTokens: out.EstimatedMapInputTokens, MaxModelCalls: out.MaxModelCalls}
	if usd, ok := out.cost(&t.flags.model, p); ok {
		res.CostUSD = &usd
	}
	return nil, res, nil
}
