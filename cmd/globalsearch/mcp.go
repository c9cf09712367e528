package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// mcpCommand serves global search to agents over the Model Context
// Protocol on standard input and output: tools global_search and
// plan_search over one index (a file or a table), with the model, prices
// and cache of the flags.
func mcpCommand(ctx context.Context, env *cliEnv, args []string) error {
	f := &searchFlags{}
	set, err := parseFlags(newMCPFlagSet(f, env), args)
	if err != nil {
		return err
	}
	f.set = set
	if err := f.cache.check(f.set); err != nil {
		return err
	}
	if !f.index.given() {
		return &usageError{"mcp needs --index FILE, --graphrag DIR or --table TABLE"}
	}
	// The index flags' mistakes are the command line's: refused at start,
	// not by the first tool call.
	if err := f.index.check(); err != nil {
		return err
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
	fs := newFlagSet("mcp", env)
	f.index.register(fs)
	f.model.register(fs)
	f.cache.register(fs)
	registerVerbose(fs, &f.verbose)
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
	}, guardTool(env, t.globalSearch))
	mcp.AddTool(srv, &mcp.Tool{
		Name: "plan_search",
		Description: "Dry run of global_search with no model call: how many map batches the question needs, " +
			"their estimated input tokens, the most model calls and, when prices are set, the most it can cost.",
	}, guardTool(env, t.planSearch))
	return srv, nil
}

// guardTool turns a panic of a tool call (a bug, a map worker's included:
// globalsearch.WorkerPanic) into that call's tool error, "internal error:
// ...", with the stack on stderr: the call runs on the MCP server's own
// goroutine, past the command edge's recover, and the server must outlive
// one bad call.
func guardTool[In, Out any](env *cliEnv, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			stack := debug.Stack()
			if wp, ok := v.(*globalsearch.WorkerPanic); ok {
				v, stack = wp.Value, wp.Stack
			}
			fmt.Fprintf(env.stderr, "globalsearch mcp: internal error: %v\n%s", v, stack)
			var zero Out
			res, out, err = nil, zero, fmt.Errorf("internal error: %v", v)
		}()
		return h(ctx, req, in)
	}
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

// toolRequest is a tool's input as a request. The level stays the JSON the
// client sent, so the request's own rule judges it, in the field table's
// order and within the strict reader's depth limit
// (docs/contract.md#strict-json), as it judges the same level in a JSON
// request; it shadows Request's CommunityLevel.
type toolRequest struct {
	globalsearch.Request
	CommunityLevel json.RawMessage `json:"communityLevel,omitempty"`
}

// request builds the tool's input as a request, with the seed of the
// flags. A level given as a string is read as the CLI's --level is.
func (t *mcpTools) request(in searchInput) (toolRequest, error) {
	req := toolRequest{Request: globalsearch.Request{Query: in.Query, Namespace: in.Namespace}}
	level := in.Level
	if s, ok := level.(string); ok {
		l, err := globalsearch.ParseLevel(s)
		if err != nil {
			return toolRequest{}, &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
		}
		level = l
	}
	if level != nil {
		raw, err := json.Marshal(level)
		if err != nil {
			return toolRequest{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "encode request: %w", err)
		}
		req.CommunityLevel = raw
	}
	if in.ResponseType != "" {
		req.ResponseType = &in.ResponseType
	}
	if t.flags.set["seed"] {
		seed := t.flags.seed
		req.ShuffleSeed = &seed
	}
	return req, nil
}

// params reads a tool's input as a request through the same path as JSON
// and the CLI, so bad input gets the message the CLI prints.
func (t *mcpTools) params(in searchInput) (globalsearch.Params, error) {
	req, err := t.request(in)
	if err != nil {
		return globalsearch.Params{}, err
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
