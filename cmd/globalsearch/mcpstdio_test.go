package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// sampleIndex is the sample index `make run` searches.
var sampleIndex = filepath.Join("..", "..", "testdata", "sample-index.json")

// TestMCPOverStdioWithABareEnvironment runs the real binary as an MCP
// client starts it: a subprocess speaking JSON-RPC on stdio, given only
// HOME and PATH. The server must start whatever the environment lacks,
// and say what is missing in a tool error the client shows.
func TestMCPOverStdioWithABareEnvironment(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "globalsearch")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	// A HOME of its own: no AWS config or cache of the machine's.
	bareEnv := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	serve := func(t *testing.T, extraEnv []string, args ...string) *mcp.ClientSession {
		cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
		cmd.Env = append(bareEnv, extraEnv...)
		return clientSession(t, &mcp.CommandTransport{Command: cmd})
	}
	const bedrockModel = "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0"
	listed := func(t *testing.T, cs *mcp.ClientSession) []string {
		tools, err := cs.ListTools(t.Context(), nil)
		require.NoError(t, err)
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		return names
	}

	t.Run("offline model", func(t *testing.T) {
		cs := serve(t, nil, "--index", sampleIndex, "--seed", "1")
		assert.ElementsMatch(t, []string{"global_search", "plan_search", "read"}, listed(t, cs))
		var first, second mcpReply
		query := map[string]any{"query": "How did the fisheries and the energy transition interact?"}
		res := callTool(t, cs, "global_search", query, &first)
		require.False(t, res.IsError, toolText(res))
		assert.Equal(t, globalsearch.StatusCompleted, first.Status)
		require.NotEmpty(t, first.Communities)
		for _, c := range first.Communities {
			assert.NotEmpty(t, c.Title, "the sample index titles every community: %s", c.ID)
		}
		// The cache lives under HOME's cache directory.
		res = callTool(t, cs, "global_search", query, &second)
		require.False(t, res.IsError, toolText(res))
		assert.Equal(t, 1, second.ModelCalls, "the map answers come from the cache")
		assert.Positive(t, second.CacheHits)
	})

	t.Run("bedrock without a region", func(t *testing.T) {
		cs := serve(t, nil, "--index", sampleIndex, "--model", bedrockModel)
		assert.ElementsMatch(t, []string{"global_search", "plan_search", "read"}, listed(t, cs), "the server starts")
		var plan mcpPlan
		res := callTool(t, cs, "plan_search", map[string]any{"query": "What changed?"}, &plan)
		require.False(t, res.IsError, "a plan calls no model: %s", toolText(res))
		assert.Positive(t, plan.Batches)
		for range 2 { // the error stays the call's, and the server serves on
			res = callTool(t, cs, "global_search", map[string]any{"query": "What changed?"}, nil)
			require.True(t, res.IsError)
			assert.Equal(t, "--model bedrock:... needs an AWS region: set AWS_REGION, or region in the AWS_PROFILE's config "+
				"(an MCP client starts this server with few environment variables: give AWS_REGION and AWS_PROFILE "+
				`in the "env" block of the server's entry in the client config)`, toolText(res))
		}
	})

	t.Run("a table without a region", func(t *testing.T) {
		cs := serve(t, nil, "--table", "graphrag-index")
		for _, tool := range []string{"plan_search", "global_search"} {
			res := callTool(t, cs, tool, map[string]any{"query": "What changed?"}, nil)
			require.True(t, res.IsError, tool)
			assert.Contains(t, toolText(res), "needs an AWS region", tool)
			assert.Contains(t, toolText(res), `give AWS_REGION and AWS_PROFILE in the "env" block`, tool)
		}
	})

	t.Run("bedrock without credentials", func(t *testing.T) {
		// A region but no credentials anywhere, and no instance metadata
		// to ask: the call fails saying so, and the server serves on.
		cs := serve(t, []string{"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true"}, "--index", sampleIndex, "--model", bedrockModel)
		res := callTool(t, cs, "global_search", map[string]any{"query": "What changed?"}, nil)
		require.True(t, res.IsError)
		assert.Contains(t, strings.ToLower(toolText(res)), "credentials")
		assert.ElementsMatch(t, []string{"global_search", "plan_search", "read"}, listed(t, cs))
	})
}
