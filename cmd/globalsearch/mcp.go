package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

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
	// The prompts are the user's own configuration, like the flags: a bad
	// one stops the server at once, before the index is read.
	if err := f.checkFiles(); err != nil {
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
	// What the arguments alone decide is checked here, so a mistyped
	// config stops the server at once; what the environment decides (AWS
	// region and credentials, the files) is opened by the first tool call
	// (docs/contract.md#local).
	if _, err := parseModelSpec(f.model.spec); err != nil {
		return err
	}
	if err := f.model.resolve(env); err != nil {
		return err
	}
	srv := newMCPServer(env, f)
	// Standard output carries the protocol; logs go to standard error. A
	// line that is not one valid message is answered by the reader, and
	// the SDK never sees it (docs/contract.md#mcp-messages).
	out := &lockedWriter{w: env.stdout}
	in := newMCPReader(env.stdin, out, env.stderr, ctx.Done())
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{answered{in, out}}})
}

// newMCPFlagSet registers mcp's flags into f: the index, the model and
// its prices, the cache, the prompts, -v.
func newMCPFlagSet(f *searchFlags, env *cliEnv) *flag.FlagSet {
	fs := newFlagSet("mcp", env)
	f.index.register(fs)
	f.model.register(fs)
	f.cache.register(fs)
	f.prompts.register(fs)
	registerVerbose(fs, &f.verbose)
	fs.Int64Var(&f.seed, "seed", 0, "shuffle seed of every search (default: random per call); a fixed seed lets a repeated question reuse the map cache")
	concurrencyFlag{&f.concurrency, &f.autoConcurrency}.register(fs, helpDefaults(env))
	return fs
}

// mcpTools holds what every tool call shares: the index, the model and the
// map cache, each opened by the first call that needs it.
type mcpTools struct {
	env   *cliEnv
	flags *searchFlags

	mu            sync.Mutex
	index         globalsearch.Index // nil until opened
	fileNamespace string
	search        *globalsearch.Engine // with the model and cache; nil until opened
}

func newMCPServer(env *cliEnv, f *searchFlags) *mcp.Server {
	return (&mcpTools{env: env, flags: f}).server()
}

// server serves t's tools.
func (t *mcpTools) server() *mcp.Server {
	env := t.env
	srv := mcp.NewServer(&mcp.Implementation{Name: "graphrag-global", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{
		Name: "global_search",
		Description: "Answer a question about a whole document collection from its GraphRAG community summaries " +
			"(map-reduce over every summary of a level). Returns the answer, its status and the communities it cites " +
			"with their titles; detail \"full\" adds each cited community's claim and source-chunk ids. Best for broad " +
			"questions (themes, trends, comparisons); each call makes one model call per batch (see plan_search) and " +
			"reports progress per map batch when the call carries a progress token.",
	}, guardTool(env, t.globalSearch))
	mcp.AddTool(srv, &mcp.Tool{
		Name: "plan_search",
		Description: "Dry run of global_search with no model call: how many map batches the question needs, " +
			"their estimated input tokens, the most model calls and, when prices are set, the most it can cost.",
	}, guardTool(env, t.planSearch))
	return srv
}

// opened returns the index and the engine of a plan (no model), opening
// the index on the first call. A failure is this call's error, and the
// next call tries again: the user may fix the environment (aws sso login,
// a config file) without restarting the client.
func (t *mcpTools) opened(ctx context.Context) (globalsearch.Engine, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.index == nil {
		idx, fileNamespace, err := t.flags.index.open(ctx, t.env)
		if err != nil {
			return globalsearch.Engine{}, "", openError(err, t.flags.index.table != "")
		}
		t.index, t.fileNamespace = idx, fileNamespace
	}
	e, err := t.flags.newEngine(ctx, t.env, t.index, false)
	if err != nil {
		return globalsearch.Engine{}, "", err
	}
	return *e, t.fileNamespace, nil
}

// openedSearch is the engine of a search: with the model and the map
// cache, opened on the first search (after opened) and kept once open.
func (t *mcpTools) openedSearch(ctx context.Context) (globalsearch.Engine, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.search == nil {
		e, err := t.flags.newEngine(ctx, t.env, t.index, true)
		if err != nil {
			spec, _ := parseModelSpec(t.flags.model.spec)
			return globalsearch.Engine{}, openError(err, spec.provider == providerBedrock)
		}
		t.search = e
	}
	return *t.search, nil
}

// openError is a failure to open the index or the model. An MCP client
// starts its servers with few environment variables (HOME, PATH and not
// much more), so where AWS is needed the likely cause is an env block the
// client config lacks.
func openError(err error, needsAWS bool) error {
	if !needsAWS {
		return err
	}
	return fmt.Errorf("%w (an MCP client starts this server with few environment variables: "+
		"give AWS_REGION and AWS_PROFILE in the \"env\" block of the server's entry in the client config)", err)
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
	Query     string `json:"query" jsonschema:"the question to answer"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the index namespace to search (default: the index file's, else the deployment default)"`
	Level     any    `json:"level,omitempty" jsonschema:"community level: \"leaf\" (default), \"auto\" (the finest that fits maxMapInputTokens) or a level number, 0 the coarsest"`
	// MaxMapInputTokens is the ceiling of level "auto" (docs/contract.md#auto-level).
	MaxMapInputTokens *int   `json:"maxMapInputTokens,omitempty" jsonschema:"with level \"auto\": the most estimated map input tokens it may choose"`
	ResponseType      string `json:"responseType,omitempty" jsonschema:"the form of the answer, e.g. \"a bulleted list\" (default \"multiple paragraphs\")"`
	Selection         string `json:"selection,omitempty" jsonschema:"\"level\" (default) maps the summaries of level; \"dynamic\" rates communities top-down first and maps only the relevant ones"`
}

// globalSearchInput is global_search's input: a search and how much of
// its sources the reply holds.
type globalSearchInput struct {
	searchInput
	Detail string `json:"detail,omitempty" jsonschema:"\"compact\" (default): the answer, status and cited communities with titles; \"full\": also each cited community's claim and source-chunk ids"`
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
	if in.Selection != "" {
		req.Selection = &in.Selection
	}
	req.MaxMapInputTokens = in.MaxMapInputTokens
	if t.flags.set["seed"] {
		seed := t.flags.seed
		req.ShuffleSeed = &seed
	}
	if t.flags.set["concurrency"] && !t.flags.autoConcurrency {
		calls := t.flags.concurrency
		req.MapConcurrency = &calls
	}
	return req, nil
}

// params reads a tool's input as a request through the same path as JSON
// and the CLI, so bad input gets the message the CLI prints.
func (t *mcpTools) params(in searchInput, fileNamespace string) (globalsearch.Params, error) {
	req, err := t.request(in)
	if err != nil {
		return globalsearch.Params{}, err
	}
	data, err := json.Marshal(req)
	if err != nil {
		return globalsearch.Params{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "encode request: %w", err)
	}
	defaults, err := requestDefaults(t.env, fileNamespace, t.flags.model.mapSpec())
	if err != nil {
		return globalsearch.Params{}, err
	}
	if defaults.Prompts, err = t.flags.prompts.load(); err != nil {
		return globalsearch.Params{}, err
	}
	return globalsearch.ParseRequest(data, defaults)
}

// globalSearch runs one search. An error (bad input, a failed run, an
// index or model that would not open) comes back as a tool error whose
// text is the CLI's message.
func (t *mcpTools) globalSearch(ctx context.Context, req *mcp.CallToolRequest, in globalSearchInput) (*mcp.CallToolResult, searchOutput, error) {
	full, err := parseDetail(in.Detail)
	if err != nil {
		return nil, searchOutput{}, err
	}
	// The input is judged before the model opens: bad input never waits
	// on, or fails for, the model's environment.
	_, fileNamespace, err := t.opened(ctx)
	if err != nil {
		return nil, searchOutput{}, err
	}
	p, err := t.params(in.searchInput, fileNamespace)
	if err != nil {
		return nil, searchOutput{}, err
	}
	e, err := t.openedSearch(ctx)
	if err != nil {
		return nil, searchOutput{}, err
	}
	// A store per call: the server may live for days, and nothing of one
	// call is read by another (the map cache is separate).
	e.Runs = memstore.New()
	e.Progress = progressNotifier(ctx, req)
	res, err := e.Search(ctx, p)
	if err != nil {
		return nil, searchOutput{}, err
	}
	return nil, t.reply(ctx, e.Index, res, full), nil
}

// progressNotifier sends the client a notifications/progress per map
// batch done (progress the batches done, total the batches) when the call
// carries a progress token; nil, no hook, when it does not. The engine
// never overlaps its calls, so the notifications go out in order.
func progressNotifier(ctx context.Context, req *mcp.CallToolRequest) func(done, total int) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(done, total int) {
		// A notification that cannot be sent is the client's loss only:
		// the search goes on, and its reply fails the same way if the
		// client has gone.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(done), Total: float64(total),
			Message: fmt.Sprintf("map batches %d/%d", done, total),
		})
	}
}

func (t *mcpTools) planSearch(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, planToolOutput, error) {
	e, fileNamespace, err := t.opened(ctx)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	p, err := t.params(in, fileNamespace)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	out, err := planFor(ctx, &e, p)
	if err != nil {
		return nil, planToolOutput{}, err
	}
	res := planToolOutput{Summaries: out.SummaryCount, Batches: out.BatchCount,
		EstimatedTokens: out.EstimatedMapInputTokens, MaxModelCalls: out.MaxModelCalls}
	if c := out.Cost; c != nil {
		res.CostUSD = &c.Total
	}
	if a := out.Diagnostics.AutoLevel; a != nil {
		res.LevelUsed = a.LevelUsed.String()
	}
	return nil, res, nil
}
