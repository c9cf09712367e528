package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// TestMCPDetail: a reply names the cited communities with their titles;
// their claim and chunk ids come only with detail "full".
func TestMCPDetail(t *testing.T) {
	cs := connectMCP(t, "--index", writeIndex(t, titledIndex()), "--no-cache", "--seed", "1")
	tests := []struct {
		name          string
		detail        any // nil: not given
		wantCitations bool
	}{
		{"not given", nil, false},
		{"compact", "compact", false},
		{"full", "full", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"query": "How did solar power change?", "level": 1}
			if tc.detail != nil {
				args["detail"] = tc.detail
			}
			var out searchOutput
			res := callTool(t, cs, "global_search", args, &out)
			require.False(t, res.IsError, toolText(res))
			assert.Contains(t, out.Communities, citedCommunity{ID: "solar", Title: "Island solar"})
			if !tc.wantCitations {
				assert.Empty(t, out.Citations)
				return
			}
			require.Len(t, out.Citations, len(out.Communities))
			for i, c := range out.Citations {
				assert.Equal(t, out.Communities[i].ID, c.CommunityID, "in the same order")
				if c.CommunityID == "solar" {
					assert.Equal(t, []string{"k1"}, c.ClaimIDs)
					assert.Equal(t, []string{"c1"}, c.ChunkIDs)
				}
			}
		})
	}
	for _, bad := range []string{"FULL", "everything"} {
		t.Run("bad detail "+bad, func(t *testing.T) {
			res := callTool(t, cs, "global_search", map[string]any{"query": "q", "detail": bad}, nil)
			assert.True(t, res.IsError)
			assert.Equal(t, `detail must be "compact" or "full", got "`+bad+`"`, toolText(res))
		})
	}
}

// TestMCPNoResultsNamesWhatExists: a search with nothing to search says
// which levels or namespaces exist, as run's status line does.
func TestMCPNoResultsNamesWhatExists(t *testing.T) {
	path := writeIndex(t, titledIndex())
	env, stdout, _ := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", path, "--no-cache", "--query", "q", "--level", "7"})
	cliOut := stdout.String()
	require.Contains(t, []int{0, 3}, code, "no_results, or nothing to search: %s", cliOut)
	require.Contains(t, cliOut, "levels that exist: [0 1]")

	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(t.Context(), "harbour", titledIndex().Records))
	table := &mcpTools{env: env, flags: mcpFlags(t, env, "--no-cache"), index: store}
	tests := []struct {
		name string
		cs   *mcp.ClientSession
		args map[string]any
		want string
	}{
		{"a level that does not exist", connectMCP(t, "--index", path, "--no-cache"), map[string]any{"query": "q", "level": 7},
			"level 7 holds no summaries; levels that exist: [0 1]"},
		{"an empty namespace of a table", connectTools(t, table, nil), map[string]any{"query": "q", "namespace": "fleet"},
			`namespace "fleet" holds no summaries; namespaces that exist: harbour`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out searchOutput
			res := callTool(t, tc.cs, "global_search", tc.args, &out)
			require.False(t, res.IsError, toolText(res))
			assert.Equal(t, globalsearch.StatusNoResults, out.Status)
			assert.Equal(t, tc.want, out.Note)
			assert.Empty(t, out.Communities)
		})
	}
}

// TestMCPProgress: a call with a progress token hears of every map batch
// done, in order, with the batches as total; a call without one hears
// nothing.
func TestMCPProgress(t *testing.T) {
	notes := make(chan *mcp.ProgressNotificationParams, 64)
	env, _, _ := testEnv("")
	tools := &mcpTools{env: env, flags: mcpFlags(t, env, "--index", sampleIndex, "--no-cache", "--seed", "1")}
	cs := connectTools(t, tools, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { notes <- req.Params },
	})
	query := map[string]any{"query": "How did the fisheries and the energy transition interact?"}
	var plan planToolOutput
	require.False(t, callTool(t, cs, "plan_search", query, &plan).IsError)
	require.Greater(t, plan.Batches, 2, "batches to count")

	// Without a token first: a notification of that call would arrive
	// before those of the next, which carry a token of their own.
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "global_search", Arguments: query})
	require.NoError(t, err)
	require.False(t, res.IsError, toolText(res))
	params := &mcp.CallToolParams{Name: "global_search", Arguments: query}
	params.SetProgressToken("search-2")
	res, err = cs.CallTool(t.Context(), params)
	require.NoError(t, err)
	require.False(t, res.IsError, toolText(res))
	for done := 1; done <= plan.Batches; done++ {
		n := <-notes
		assert.Equal(t, "search-2", n.ProgressToken)
		assert.Equal(t, float64(done), n.Progress)
		assert.Equal(t, float64(plan.Batches), n.Total)
	}
	assert.Empty(t, notes, "one notification per batch")
	assert.Nil(t, progressNotifier(t.Context(), nil), "no request, no hook")
}

// TestMCPOpenFailureIsTheCallsErrorAndRetried: an index that does not
// open is each call's error, and a later call opens it once it exists.
func TestMCPOpenFailureIsTheCallsErrorAndRetried(t *testing.T) {
	path := writeIndex(t, titledIndex())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	cs := connectMCP(t, "--index", path, "--no-cache")
	for _, tool := range []string{"plan_search", "global_search"} {
		res := callTool(t, cs, tool, map[string]any{"query": "How did solar power change?"}, nil)
		assert.True(t, res.IsError, tool)
		assert.Contains(t, toolText(res), path, tool)
		assert.NotContains(t, toolText(res), "AWS_REGION", "an index file needs no AWS")
	}
	require.NoError(t, os.WriteFile(path, data, 0o600))
	for _, tool := range []string{"plan_search", "global_search"} {
		res := callTool(t, cs, tool, map[string]any{"query": "How did solar power change?"}, nil)
		assert.False(t, res.IsError, "%s: %s", tool, toolText(res))
	}
}

// failingReads is an index whose opens after the first fail: the search
// reads, the titles' read after it does not.
type failingReads struct {
	globalsearch.Index
	mu    sync.Mutex
	opens int
}

func (f *failingReads) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.opens++; f.opens > 1 {
		return nil, errors.New("table unreachable")
	}
	return f.Index.Open(ctx, namespace)
}

// TestMCPTitlesLeftOutWhenTheirReadFails: the answer is paid for, so a
// failed read of the titles leaves them out and says so on stderr.
func TestMCPTitlesLeftOutWhenTheirReadFails(t *testing.T) {
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(t.Context(), "default", titledIndex().Records))
	env, _, errOut := testEnv("")
	tools := &mcpTools{env: env, flags: mcpFlags(t, env, "--no-cache"), index: &failingReads{Index: store}}
	var out searchOutput
	res := callTool(t, connectTools(t, tools, nil), "global_search", map[string]any{"query": "How did solar power change?", "level": 1}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Contains(t, out.Communities, citedCommunity{ID: "solar"})
	assert.Contains(t, errOut.String(), ": community titles left out: table unreachable\n")
}

// TestMCPCoverageIsTheResults: the reply's coverage is the result's
// diagnostics.coverage as `run --json` prints it, absent when it is.
func TestMCPCoverageIsTheResults(t *testing.T) {
	path := writeIndex(t, titledIndex())
	env, stdout, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"run", "--index", path, "--no-cache", "--seed", "1", "--json", "--query", "How did solar power change?"}), errOut.String())
	var result struct {
		Diagnostics struct {
			Coverage any `json:"coverage"`
		} `json:"diagnostics"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &result))
	var out searchOutput
	res := callTool(t, connectMCP(t, "--index", path, "--no-cache", "--seed", "1"), "global_search", map[string]any{"query": "How did solar power change?"}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, result.Diagnostics.Coverage, out.Coverage)
	assert.True(t, strings.Contains(stdout.String(), `"coverage"`) == (out.Coverage != nil))
}
