package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The server, its tools, replies and transport are tested in shared/mcp;
// here are mcp's flags, their wiring and the command end to end.

// mcpReply and mcpPlan are the parts of global_search's and plan_search's
// replies the tests here read (docs/mcp.md).
type mcpReply struct {
	Status      globalsearch.Status `json:"status"`
	Communities []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"communities"`
	Note       string `json:"note"`
	ModelCalls int    `json:"modelCalls"`
	CacheHits  int    `json:"cacheHits"`
}

type mcpPlan struct {
	Batches int `json:"batches"`
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

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// toolCall is the line of a tools/call of tool with args, id id.
func toolCall(t *testing.T, id int, tool string, args map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	require.NoError(t, err)
	return string(data) + "\n"
}

// mcpResult is a tools/call's answer.
type mcpResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// mcpExchange runs `globalsearch mcp args` through runMain on stdin, every
// line written before it starts and the input closed after the last, as
// a client that writes and closes; it returns the exit status, the
// results by id and stderr.
func mcpExchange(t *testing.T, stdin string, args ...string) (int, map[string]json.RawMessage, string) {
	t.Helper()
	env, out, errOut := testEnv(stdin)
	code := runMain(t.Context(), env, append([]string{"mcp"}, args...))
	byID := map[string]json.RawMessage{}
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  any             `json:"error"`
		}
		require.NoError(t, json.Unmarshal(lines.Bytes(), &r), lines.Text())
		require.Nil(t, r.Error, lines.Text())
		byID[string(r.ID)] = r.Result
	}
	return code, byID, errOut.String()
}

// TestMCPEndToEnd: `globalsearch mcp` answers initialize, tools/list and
// a plan_search on the flags' index, and exits 0 at the end of its input.
func TestMCPEndToEnd(t *testing.T) {
	stdin := mcpInitialize + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" + toolCall(t, 3, "plan_search", map[string]any{"query": "q"})
	code, byID, errOut := mcpExchange(t, stdin, "--index", writeIndex(t, smallIndex()), "--no-cache")
	require.Equal(t, 0, code, errOut)
	assert.Len(t, byID, 3)
	assert.Contains(t, string(byID["2"]), `"plan_search"`)
	var res mcpResult
	require.NoError(t, json.Unmarshal(byID["3"], &res))
	require.False(t, res.IsError, string(byID["3"]))
	var plan mcpPlan
	require.NoError(t, json.Unmarshal(res.StructuredContent, &plan))
	assert.Positive(t, plan.Batches)
}

// TestMCPBadInputIsAToolErrorWithTheCLIMessage: each bad input comes back
// as a tool error whose text is what `globalsearch run` prints for it.
func TestMCPBadInputIsAToolErrorWithTheCLIMessage(t *testing.T) {
	path := writeIndex(t, smallIndex())
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
			// The CLI names the request's field, MCP the argument sent
			// (docs/contract.md#mcp-arguments).
			want = strings.ReplaceAll(want, "communityLevel", "level")
			tools := []string{"global_search", "plan_search"}
			stdin := mcpInitialize
			for i, tool := range tools {
				stdin += toolCall(t, 10+i, tool, tc.args)
			}
			code, byID, mcpErr := mcpExchange(t, stdin, "--index", path, "--no-cache")
			require.Equal(t, 0, code, mcpErr)
			for i, tool := range tools {
				var res mcpResult
				require.NoError(t, json.Unmarshal(byID[fmt.Sprint(10+i)], &res), tool)
				assert.True(t, res.IsError, tool)
				if assert.Len(t, res.Content, 1, tool) {
					assert.Equal(t, want, res.Content[0].Text, tool)
				}
			}
		})
	}
}

// TestMCPNoResultsNoteIsRuns: a search of a level that does not exist
// names the levels that do, in run's status line and in global_search's
// note alike.
func TestMCPNoResultsNoteIsRuns(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, stdout, _ := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", path, "--no-cache", "--query", "q", "--level", "7"})
	cliOut := stdout.String()
	require.Contains(t, []int{0, 3}, code, "no_results, or nothing to search: %s", cliOut)
	require.Contains(t, cliOut, "levels that exist: [0 1]")
	code, byID, errOut := mcpExchange(t, mcpInitialize+toolCall(t, 2, "global_search", map[string]any{"query": "q", "level": 7}), "--index", path, "--no-cache")
	require.Equal(t, 0, code, errOut)
	var res mcpResult
	require.NoError(t, json.Unmarshal(byID["2"], &res))
	var reply mcpReply
	require.NoError(t, json.Unmarshal(res.StructuredContent, &reply))
	assert.Equal(t, "level 7 holds no summaries; levels that exist: [0 1]", reply.Note)
}

func TestMCPCommandUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", nil, "mcp needs --index FILE, --graphrag DIR or --table TABLE"},
		{"unknown model", []string{"--index", "x.json", "--model", "gpt"}, `unknown --model "gpt"`},
		{"one price alone", []string{"--index", "x.json", "--price-in", "1"}, "(or GRAPHRAG_PRICE_IN and GRAPHRAG_PRICE_OUT) go together"},
		{"stray argument", []string{"--index", "x.json", "extra"}, `unexpected argument "extra"`},
		{"cache and no cache", []string{"--index", "x.json", "--cache", "d", "--no-cache"}, "--cache needs a directory and excludes --no-cache"},
		{"a concurrency neither a number nor auto", []string{"--index", "x.json", "--concurrency", "lots"}, `invalid value "lots" for flag -concurrency`},
		{"a community level that is no number", []string{"--index", "x.json", "--community-level", "top"}, "--community-level must be a non-negative integer, GraphRAG's community level"},
		{"both level flags", []string{"--index", "x.json", "--level", "1", "--community-level", "1"}, "--level and --community-level exclude each other"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, 2, runMain(context.Background(), env, append([]string{"mcp"}, tc.args...)))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

// TestMCPFlagsWiring: --seed and --concurrency N are every search's,
// --concurrency auto leaves the request's to its default
// (docs/contract.md#auto-concurrency), and a table or a Bedrock model
// makes an open failure name the client's env block.
func TestMCPFlagsWiring(t *testing.T) {
	env, _, _ := testEnv("")
	srv := newMCPServer(env, mcpFlags(t, env, "--concurrency", "3", "--seed", "5", "--table", "t", "--model", "bedrock:m"))
	require.NotNil(t, srv.Seed)
	assert.Equal(t, int64(5), *srv.Seed)
	require.NotNil(t, srv.MapConcurrency)
	assert.Equal(t, 3, *srv.MapConcurrency)
	assert.True(t, srv.IndexNeedsAWS)
	assert.True(t, srv.ModelNeedsAWS)

	srv = newMCPServer(env, mcpFlags(t, env, "--concurrency", "auto", "--index", "x.json"))
	assert.Nil(t, srv.Seed, "a random seed per call")
	assert.Nil(t, srv.MapConcurrency, "auto: the default, adapted")
	assert.False(t, srv.IndexNeedsAWS)
	assert.False(t, srv.ModelNeedsAWS)
}

// connectMCP serves the flags' index in process, wired as mcp wires it,
// and returns a client session over an in-memory transport.
func connectMCP(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	env, _, _ := testEnv("")
	return connectServer(t, newMCPServer(env, mcpFlags(t, env, args...)))
}

func connectServer(t *testing.T, srv interface {
	Connect(context.Context, mcp.Transport) (*mcp.ServerSession, error)
}) *mcp.ClientSession {
	t.Helper()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), serverSide)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	return clientSession(t, clientSide)
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
