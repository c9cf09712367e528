package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolResult reads the tools/call answer of id from byID.
func toolResult(t *testing.T, byID map[string]json.RawMessage, id int) mcpResult {
	t.Helper()
	var res mcpResult
	require.NoError(t, json.Unmarshal(byID[fmt.Sprint(id)], &res), string(byID[fmt.Sprint(id)]))
	return res
}

// TestMCPMissingFolderIsNamedInFull (docs/mcp.md#paths): a relative
// --graphrag that names nothing is reported on stderr at start with the
// absolute path and the working directory, initialize still succeeds, and
// every call's error says the same; a relative path that exists is read.
func TestMCPMissingFolderIsNamedInFull(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	missing := filepath.Join("no-such-dir", "christmas-carol")
	stdin := mcpInitialize + toolCall(t, 2, "plan_search", map[string]any{"query": "q"}) + toolCall(t, 3, "global_search", map[string]any{"query": "q"})
	code, byID, errOut := mcpExchange(t, stdin, "--graphrag", missing, "--no-cache")
	require.Equal(t, 0, code, errOut)
	want := fmt.Sprintf("--graphrag names %s, and there is no such folder (relative paths are resolved against the working directory the MCP client started this server in, %s: give an absolute path in the client config)",
		filepath.Join(wd, missing), wd)
	assert.Equal(t, "globalsearch mcp: "+want+"\n", errOut, "said once, at start")
	assert.Contains(t, string(byID["1"]), `"serverInfo"`, "initialize succeeds")
	for _, id := range []int{2, 3} {
		res := toolResult(t, byID, id)
		assert.True(t, res.IsError)
		require.Len(t, res.Content, 1)
		assert.Equal(t, want, res.Content[0].Text, "call %d", id)
	}

	code, byID, errOut = mcpExchange(t, mcpInitialize+toolCall(t, 2, "plan_search", map[string]any{"query": "q"}), "--index", sampleIndex, "--no-cache")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "a relative path that exists is no problem")
	res := toolResult(t, byID, 2)
	assert.False(t, res.IsError, string(byID["2"]))
}

// TestMCPArgumentsAreTypedAndNamed (docs/contract.md#mcp-arguments): over
// real JSON-RPC lines, each level form is read, graphragLevel N plans what
// --community-level N plans, and each refusal names the argument sent.
func TestMCPArgumentsAreTypedAndNamed(t *testing.T) {
	path := writeIndex(t, smallIndex())
	planOf := func(t *testing.T, args ...string) int {
		env, stdout, errOut := testEnv("")
		code := runMain(context.Background(), env, append([]string{"plan", "--index", path, "--no-cache", "--query", "q", "--json"}, args...))
		require.Equal(t, 0, code, errOut.String())
		var out struct {
			SummaryCount int `json:"summaryCount"`
		}
		require.NoError(t, json.NewDecoder(strings.NewReader(stdout.String())).Decode(&out))
		return out.SummaryCount
	}
	tests := []struct {
		name    string
		args    map[string]any
		cliArgs []string // the plan of the same selection; nil: refused
		wantErr string
	}{
		{"a level number as a string", map[string]any{"level": "1"}, []string{"--level", "1"}, ""},
		{"graphrag:N as a level", map[string]any{"level": "graphrag:1"}, []string{"--community-level", "1"}, ""},
		{"graphragLevel", map[string]any{"graphragLevel": 1}, []string{"--level", "graphrag:1"}, ""},
		{"an exponent", map[string]any{"level": json.Number("1e2")}, nil, `level must be "leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`},
		{"the request's name", map[string]any{"communityLevel": 2}, nil, `unknown argument "communityLevel": the arguments are graphragLevel, level, mapServiceTier, maxMapInputTokens, namespace, promptCache, query, reduceMode, reduceServiceTier, responseType, seedPolicy, selection`},
		{"a string for an integer", map[string]any{"maxMapInputTokens": "100"}, nil, "maxMapInputTokens must be an integer"},
		{"graphragLevel as a string", map[string]any{"graphragLevel": "2"}, nil, "graphragLevel must be an integer"},
		{"both levels", map[string]any{"level": 1, "graphragLevel": 1}, nil, `level and graphragLevel exclude each other: graphragLevel N is level "graphrag:N"`},
		{"dynamic with graphragLevel", map[string]any{"selection": "dynamic", "graphragLevel": 1}, nil,
			`selection "dynamic" chooses the communities itself, down to the leaves: leave graphragLevel out or make it "leaf"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["query"] = "q"
			code, byID, errOut := mcpExchange(t, mcpInitialize+toolCall(t, 2, "plan_search", tc.args), "--index", path, "--no-cache")
			require.Equal(t, 0, code, errOut)
			res := toolResult(t, byID, 2)
			if tc.cliArgs == nil {
				require.True(t, res.IsError)
				require.Len(t, res.Content, 1)
				assert.Equal(t, tc.wantErr, res.Content[0].Text)
				return
			}
			require.False(t, res.IsError, string(byID["2"]))
			var plan struct {
				Summaries int `json:"summaries"`
			}
			require.NoError(t, json.Unmarshal(res.StructuredContent, &plan))
			assert.Equal(t, planOf(t, tc.cliArgs...), plan.Summaries)
		})
	}
}
