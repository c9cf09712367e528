// Package mcp serves global search to agents over the Model Context
// Protocol on a byte stream, standard input and output in `globalsearch
// mcp` (docs/mcp.md): the tools global_search and plan_search over one
// index, the replies an agent reads, and a JSON-RPC reader that answers a
// bad line itself (docs/contract.md#mcp-messages). It takes what it
// serves as values and functions, so the CLI only parses flags and wires.
package mcp

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Server is what the tools serve. The index and the engines open on the
// first tool call that needs them, not at start: an MCP client starts the
// server with few environment variables, and initialize and tools/list
// must work without them (docs/mcp.md).
type Server struct {
	// OpenIndex opens the index; fileNamespace is an index file's own
	// namespace, which a request defaults to, and "" for a table.
	OpenIndex func(ctx context.Context) (idx globalsearch.Index, fileNamespace string, err error)
	// NewEngine is an engine over idx that plans; withModel adds the
	// model and the map cache, for a search.
	NewEngine func(ctx context.Context, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error)
	// NewRuns is a runs store for one search, the in-memory one in one
	// process; the edge imports no adapter (docs/architecture.md).
	NewRuns func() globalsearch.Runs
	// Defaults are a request's defaults (docs/contract.md#request) when
	// the index file's namespace is fileNamespace.
	Defaults func(fileNamespace string) (globalsearch.Defaults, error)
	// Seed, when set, is every search's shuffleSeed; MapConcurrency, when
	// set, every search's mapConcurrency.
	Seed           *int64
	MapConcurrency *int
	// IndexNeedsAWS and ModelNeedsAWS say that opening the index or the
	// model needs AWS, so that a failure names the client config's env
	// block, the likely cause.
	IndexNeedsAWS, ModelNeedsAWS bool
	// Log receives what is not the protocol's: a tool call's panic and
	// its stack, titles left out, a path that does not exist.
	// Standard output carries the protocol.
	Log io.Writer
	// Paths are the files and folders the command line names, resolved
	// against WorkDir at start (docs/mcp.md#paths): one that does not
	// exist is reported on Log as the server starts, and is each tool
	// call's error until it does.
	Paths   []Path
	WorkDir string
}

// Serve serves the tools on r and w, one JSON-RPC message a line, until r
// ends and every request read has its answer, or ctx ends. A line that is
// not one valid message is answered by the reader, and the SDK never sees
// it (docs/contract.md#mcp-messages).
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	t := s.tools()
	t.reportPaths(t.Log)
	out := &lockedWriter{w: w}
	in := newLineReader(r, out, t.Log, ctx.Done())
	return t.server().Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{answered{in, out}}})
}

// Connect serves the tools on an SDK transport, an in-memory one in a
// test, with none of Serve's line reading.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.tools().server().Connect(ctx, t, nil)
}

// tools holds what every tool call of one session shares: the index and
// the engine of a search, each opened by the first call that needs it.
type tools struct {
	*Server

	mu            sync.Mutex
	index         globalsearch.Index // nil until opened
	fileNamespace string
	search        *globalsearch.Engine // with the model and cache; nil until opened
}

// tools is a session's tools over a copy of s, which a caller may then
// change without a lock.
func (s *Server) tools() *tools {
	c := *s
	if c.Log == nil {
		c.Log = io.Discard
	}
	return &tools{Server: &c}
}

// server serves t's tools.
func (t *tools) server() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "graphrag-global", Version: "1"}, nil)
	addTool(srv, &sdk.Tool{
		Name: "global_search",
		Description: "Answer a question about a whole document collection from its GraphRAG community summaries " +
			"(map-reduce over every summary of a level). Returns the answer, its status and the communities it cites " +
			"with their titles; detail \"full\" adds each cited community's claim and source-chunk ids. Best for broad " +
			"questions (themes, trends, comparisons); each call makes one model call per batch (see plan_search) and " +
			"reports progress per map batch when the call carries a progress token.",
	}, t.Log, func(props map[string]*jsonschema.Schema) {
		searchSchema(props)
		props["detail"].Enum = []any{detailCompact, detailFull}
	}, t.globalSearch)
	addTool(srv, &sdk.Tool{
		Name: "plan_search",
		Description: "Dry run of global_search with no model call: how many map batches the question needs, " +
			"their estimated input tokens, the most model calls and, when prices are set, the most it can cost.",
	}, t.Log, searchSchema, t.planSearch)
	t.addRead(srv)
	return srv
}

// opened returns the index and the engine of a plan (no model), opening
// the index on the first call. A failure is this call's error, and the
// next call tries again: the user may fix the environment (aws sso login,
// a config file) without restarting the client.
func (t *tools) opened(ctx context.Context) (globalsearch.Engine, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.index == nil {
		if err := t.checkPaths(); err != nil {
			return globalsearch.Engine{}, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "%w", err)
		}
		idx, fileNamespace, err := t.OpenIndex(ctx)
		if err != nil {
			return globalsearch.Engine{}, "", openError(err, t.IndexNeedsAWS)
		}
		t.index, t.fileNamespace = idx, fileNamespace
	}
	e, err := t.NewEngine(ctx, t.index, false)
	if err != nil {
		return globalsearch.Engine{}, "", err
	}
	return *e, t.fileNamespace, nil
}

// openedSearch is the engine of a search: with the model and the map
// cache, opened on the first search (after opened) and kept once open.
func (t *tools) openedSearch(ctx context.Context) (globalsearch.Engine, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.search == nil {
		e, err := t.NewEngine(ctx, t.index, true)
		if err != nil {
			return globalsearch.Engine{}, openError(err, t.ModelNeedsAWS)
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
// ...", with the stack on log: the call runs on the SDK's own goroutine,
// past the command edge's recover, and the server must outlive one bad
// call.
func guardTool[In, Out any](log io.Writer, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			stack := debug.Stack()
			if wp, ok := v.(*globalsearch.WorkerPanic); ok {
				v, stack = wp.Value, wp.Stack
			}
			fmt.Fprintf(log, "globalsearch mcp: internal error: %v\n%s", v, stack)
			var zero Out
			res, out, err = nil, zero, fmt.Errorf("internal error: %v", v)
		}()
		return h(ctx, req, in)
	}
}
