package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// TestMCPDetail: a reply names the cited communities with their titles;
// their claim and chunk ids come only with detail "full".
func TestMCPDetail(t *testing.T) {
	cs := connect(t, seeded(fileServer(writeIndex(t, titledIndex()), nil), 1), nil)
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
// which levels or namespaces exist, as run's status line does
// (globalsearch.LevelList, globalsearch.EmptyNamespaceNote).
func TestMCPNoResultsNamesWhatExists(t *testing.T) {
	path := writeIndex(t, titledIndex())
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(t.Context(), "harbour", titledIndex().Records))
	tests := []struct {
		name string
		cs   *sdk.ClientSession
		args map[string]any
		want string
	}{
		{"a level that does not exist", connect(t, fileServer(path, nil), nil), map[string]any{"query": "q", "level": 7},
			"level 7 holds no summaries; levels that exist: [0 1]"},
		{"an empty namespace of a table", connect(t, storeServer(store, nil), nil), map[string]any{"query": "q", "namespace": "fleet"},
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
	notes := make(chan *sdk.ProgressNotificationParams, 64)
	cs := connect(t, seeded(fileServer(sampleIndex, nil), 1), &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { notes <- req.Params },
	})
	query := map[string]any{"query": "How did the fisheries and the energy transition interact?"}
	var plan planToolOutput
	require.False(t, callTool(t, cs, "plan_search", query, &plan).IsError)
	require.Greater(t, plan.Batches, 2, "batches to count")

	// Without a token first: a notification of that call would arrive
	// before those of the next, which carry a token of their own.
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "global_search", Arguments: query})
	require.NoError(t, err)
	require.False(t, res.IsError, toolText(res))
	params := &sdk.CallToolParams{Name: "global_search", Arguments: query}
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
	cs := connect(t, fileServer(path, nil), nil)
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
	var errOut bytes.Buffer
	var out searchOutput
	res := callTool(t, connect(t, storeServer(&failingReads{Index: store}, &errOut), nil), "global_search", map[string]any{"query": "How did solar power change?", "level": 1}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Contains(t, out.Communities, citedCommunity{ID: "solar"})
	assert.Contains(t, errOut.String(), ": community titles left out: table unreachable\n")
}

// TestMCPCoverageIsTheResults: the reply's coverage is the result's
// diagnostics.coverage as `run --json` prints it (the result's JSON),
// absent when it is.
func TestMCPCoverageIsTheResults(t *testing.T) {
	path := writeIndex(t, titledIndex())
	srv := seeded(fileServer(path, nil), 1)
	idx, fileNamespace, err := srv.OpenIndex(t.Context())
	require.NoError(t, err)
	e, err := srv.NewEngine(t.Context(), idx, true)
	require.NoError(t, err)
	p, err := srv.tools().params(searchInput{Query: "How did solar power change?"}, fileNamespace)
	require.NoError(t, err)
	searched, err := e.Search(t.Context(), p)
	require.NoError(t, err)
	data, err := json.Marshal(searched)
	require.NoError(t, err)
	var result struct {
		Diagnostics struct {
			Coverage any `json:"coverage"`
		} `json:"diagnostics"`
	}
	require.NoError(t, json.Unmarshal(data, &result))
	var out searchOutput
	res := callTool(t, connect(t, srv, nil), "global_search", map[string]any{"query": "How did solar power change?"}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, result.Diagnostics.Coverage, out.Coverage)
	assert.True(t, strings.Contains(string(data), `"coverage"`) == (out.Coverage != nil))
}
