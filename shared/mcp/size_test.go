package mcp

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// TestMCPReplySizeOnChristmasCarol measures global_search's reply, as the
// client receives it, on a real GraphRAG index imported as a user would:
// the compact reply carries the answer and the cited communities' titles,
// not their claim and chunk ids, which weigh more than the rest together.
func TestMCPReplySizeOnChristmasCarol(t *testing.T) {
	records, _, err := graphrag.Import(t.Context(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
	require.NoError(t, err)
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(t.Context(), "default", records))
	cs := connect(t, seeded(storeServer(store, nil), 1), nil)
	size := func(t *testing.T, args map[string]any) (int, searchOutput) {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "global_search", Arguments: args})
		require.NoError(t, err)
		require.False(t, res.IsError, toolText(res))
		data, err := json.Marshal(res)
		require.NoError(t, err)
		structured, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		var out searchOutput
		require.NoError(t, json.Unmarshal(structured, &out))
		return len(data), out
	}
	for _, query := range []string{"What are the top themes?", "How does Scrooge change?", "What role do the spirits play?"} {
		t.Run(query, func(t *testing.T) {
			compact, out := size(t, map[string]any{"query": query})
			full, _ := size(t, map[string]any{"query": query, "detail": "full"})
			t.Logf("reply bytes: compact %d, full %d; answer %d characters, %d communities cited", compact, full, len(out.Answer), len(out.Communities))
			require.NotEmpty(t, out.Communities)
			assert.Empty(t, out.Citations)
			assert.Less(t, 2*compact, full, "the ids are most of a full reply")
		})
	}
}
