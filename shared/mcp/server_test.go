package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// connectMCP serves the flags' index in process and returns a client
// session over an in-memory transport.
func connectMCP(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	env, _, _ := testEnv("")
	return connectTools(t, &mcpTools{env: env, flags: mcpFlags(t, env, args...)}, nil)
}

// mcpFlags parses args as mcp's flags.
func mcpFlags(t *testing.T, env *cliEnv, args ...string) *searchFlags {
	t.Helper()
	f := &searchFlags{set: map[string]bool{}}
	fs := newMCPFlagSet(f, env)
	require.NoError(t, fs.Parse(args))
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f
}

// connectTools serves tools in process and returns a client session (with
// the client options opts) over an in-memory transport.
func connectTools(t *testing.T, tools *mcpTools, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := tools.server().Connect(t.Context(), serverSide, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), clientSide, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// titledIndex is smallIndex with community titles.
func titledIndex() indexfile.File {
	f := smallIndex()
	titles := map[string]string{"root": "Harbour economy", "fish": "Fisheries", "solar": "Island solar"}
	for i := range f.Records.Summaries {
		f.Records.Summaries[i].Title = titles[f.Records.Summaries[i].ID]
	}
	return f
}

func clientSession(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), transport, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, out))
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestMCPTools(t *testing.T) {
	path := writeIndex(t, titledIndex())
	cs := connectMCP(t, "--index", path, "--no-cache", "--price-in", "0.001", "--price-out", "0.005")

	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	inputs := map[string][]string{}
	for _, tool := range tools.Tools {
		schema, ok := tool.InputSchema.(map[string]any)
		require.True(t, ok, "%s: %T", tool.Name, tool.InputSchema)
		properties, ok := schema["properties"].(map[string]any)
		require.True(t, ok, tool.Name)
		for name := range properties {
			inputs[tool.Name] = append(inputs[tool.Name], name)
		}
	}
	assert.ElementsMatch(t, []string{"query", "namespace", "level", "maxMapInputTokens", "responseType", "selection", "detail"}, inputs["global_search"])
	assert.ElementsMatch(t, []string{"query", "namespace", "level", "maxMapInputTokens", "responseType", "selection"}, inputs["plan_search"])
	assert.Len(t, inputs, 2, "two tools")

	var out searchOutput
	res := callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?", "level": 1, "responseType": "one sentence"}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, globalsearch.StatusCompleted, out.Status)
	assert.Contains(t, strings.ToLower(out.Answer), "solar")
	require.NotEmpty(t, out.Communities)
	assert.Contains(t, out.Communities, citedCommunity{ID: "solar", Title: "Island solar"})
	assert.Empty(t, out.Citations, "claims and chunks only on request")
	assert.Empty(t, out.Note)
	assert.Positive(t, out.ModelCalls)

	var plan planToolOutput
	res = callTool(t, cs, "plan_search", map[string]any{"query": "How did solar power change?", "level": "1"}, &plan)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, 2, plan.Summaries)
	require.Positive(t, plan.Batches)
	assert.Equal(t, 2*plan.Batches+2, plan.MaxModelCalls)
	assert.Positive(t, plan.EstimatedTokens)
	require.NotNil(t, plan.CostUSD, "prices are set")
	assert.Positive(t, *plan.CostUSD)
	assert.Empty(t, plan.LevelUsed, "a fixed level")

	var auto planToolOutput
	res = callTool(t, cs, "plan_search", map[string]any{"query": "How did solar power change?", "level": "auto", "maxMapInputTokens": 100000}, &auto)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, "leaf", auto.LevelUsed, "docs/contract.md#auto-level: everything fits, the leaves")
}

func TestMCPPlanWithoutPricesHasNoCost(t *testing.T) {
	cs := connectMCP(t, "--index", writeIndex(t, smallIndex()), "--no-cache")
	var plan planToolOutput
	res := callTool(t, cs, "plan_search", map[string]any{"query": "q"}, &plan)
	require.False(t, res.IsError, toolText(res))
	assert.Nil(t, plan.CostUSD)
}

// TestMCPBadInputIsAToolErrorWithTheCLIMessage: each bad input comes back
// as a tool error whose text is what `globalsearch run` prints for it.
func TestMCPBadInputIsAToolErrorWithTheCLIMessage(t *testing.T) {
	path := writeIndex(t, smallIndex())
	cs := connectMCP(t, "--index", path, "--no-cache")
	tests := []struct {
		name    string
		args    map[string]any
		cliArgs []string
	}{
		{"blank query", map[string]any{"query": "  "}, []string{"--query", "  "}},
		{"bad level", map[string]any{"query": "q", "level": "top"}, []string{"--query", "q", "--level", "top"}},
		{"negative level", map[string]any{"query": "q", "level": -1}, []string{"--query", "q", "--level", "-1"}},
		{"another namespace than the file's", map[string]any{"query": "q", "namespace": "other"}, []string{"--query", "q", "--namespace", "other"}},
		{"response type too long", map[string]any{"query": "q", "responseType": strings.Repeat("x", 101)}, []string{"--query", "q", "--response-type", strings.Repeat("x", 101)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, append([]string{"run", "--index", path, "--no-cache"}, tc.cliArgs...))
			require.Equal(t, 2, code, errOut.String())
			want := strings.TrimSuffix(strings.TrimPrefix(errOut.String(), "globalsearch run: "), "\n")
			for _, tool := range []string{"global_search", "plan_search"} {
				res := callTool(t, cs, tool, tc.args, nil)
				assert.True(t, res.IsError, tool)
				assert.Equal(t, want, toolText(res), tool)
			}
		})
	}
}

func TestMCPCommandUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", nil, "mcp needs --index FILE, --graphrag DIR or --table TABLE"},
		{"unknown model", []string{"--index", "x.json", "--model", "gpt"}, `unknown --model "gpt"`},
		{"one price alone", []string{"--index", "x.json", "--price-in", "1"}, "--price-in and --price-out"},
		{"stray argument", []string{"--index", "x.json", "extra"}, `unexpected argument "extra"`},
		{"cache and no cache", []string{"--index", "x.json", "--cache", "d", "--no-cache"}, "--cache needs a directory and excludes --no-cache"},
		{"a concurrency neither a number nor auto", []string{"--index", "x.json", "--concurrency", "lots"}, `invalid value "lots" for flag -concurrency`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, 2, runMain(context.Background(), env, append([]string{"mcp"}, tc.args...)))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

// TestMCPDeepLevelIsAToolError: a level nested past the strict reader's
// limit is invalid input naming it, not a parse that grows with the depth.
func TestMCPDeepLevelIsAToolError(t *testing.T) {
	cs := connectMCP(t, "--index", writeIndex(t, smallIndex()), "--no-cache")
	var level any = 1
	for range strictjson.MaxDepth {
		level = []any{level}
	}
	res := callTool(t, cs, "plan_search", map[string]any{"query": "q", "level": level}, nil)
	assert.True(t, res.IsError)
	assert.Contains(t, toolText(res), "request: nesting deeper than 64 levels in communityLevel[0]")
}

// TestMCPToolRequest: a tool's input becomes the request JSON a client
// would send; a level given as a number is passed on as sent, for the
// request's own rule to judge.
func TestMCPToolRequest(t *testing.T) {
	tests := []struct {
		name string
		in   searchInput
		seed bool
		want string
	}{
		{"query only", searchInput{Query: "q"}, false, `{"query":"q"}`},
		{"leaf as a string", searchInput{Query: "q", Level: "leaf"}, false, `{"query":"q","communityLevel":"leaf"}`},
		{"a level number as a string", searchInput{Query: "q", Level: "2"}, false, `{"query":"q","communityLevel":2}`},
		{"a level number", searchInput{Query: "q", Level: float64(2)}, false, `{"query":"q","communityLevel":2}`},
		{"a level that is no integer, as sent", searchInput{Query: "q", Level: 2.5}, false, `{"query":"q","communityLevel":2.5}`},
		{"namespace, response type and the flags' seed", searchInput{Query: "q", Namespace: "tiny", ResponseType: "one line"}, true,
			`{"query":"q","namespace":"tiny","responseType":"one line","shuffleSeed":5}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := &mcpTools{flags: &searchFlags{seed: 5, set: map[string]bool{"seed": tc.seed}}}
			req, err := tools.request(tc.in)
			require.NoError(t, err)
			data, err := json.Marshal(req)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(data))
		})
	}
	// --concurrency N is every search's mapConcurrency; auto leaves it to
	// the default and adapts (docs/contract.md#auto-concurrency).
	for _, tc := range []struct {
		value string
		want  string
	}{{"3", `{"query":"q","mapConcurrency":3}`}, {"auto", `{"query":"q"}`}} {
		t.Run("--concurrency "+tc.value, func(t *testing.T) {
			env, _, _ := testEnv("")
			f := mcpFlags(t, env, "--concurrency", tc.value)
			req, err := (&mcpTools{flags: f}).request(searchInput{Query: "q"})
			require.NoError(t, err)
			data, err := json.Marshal(req)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(data))
		})
	}
	t.Run("a bad level string is invalid input", func(t *testing.T) {
		_, err := (&mcpTools{flags: &searchFlags{}}).request(searchInput{Query: "q", Level: "top"})
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	})
}

// TestMCPToolPanicIsAToolError: a tool call that panics (a map worker's
// panic comes back to the call's goroutine as a globalsearch.WorkerPanic)
// answers that call with an internal error and leaves the server serving,
// its stack on stderr.
func TestMCPToolPanicIsAToolError(t *testing.T) {
	tests := []struct {
		name      string
		value     any
		wantStack string
	}{
		{"in the call", "nil map", "mcp_test.go"},
		{"in a map worker", &globalsearch.WorkerPanic{Value: "nil map", Stack: []byte("worker frame\n")}, "worker frame"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			h := guardTool(env, func(context.Context, *mcp.CallToolRequest, globalSearchInput) (*mcp.CallToolResult, searchOutput, error) {
				panic(tc.value)
			})
			res, out, err := h(context.Background(), nil, globalSearchInput{searchInput: searchInput{Query: "q"}})
			assert.Nil(t, res)
			assert.Equal(t, searchOutput{}, out)
			require.EqualError(t, err, "internal error: nil map")
			assert.Contains(t, errOut.String(), "globalsearch mcp: internal error: nil map\n")
			assert.Contains(t, errOut.String(), tc.wantStack)
		})
	}
}
