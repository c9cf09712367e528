package indexsource

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
)

// A folder read for a search only (run, plan) holds the same summaries as
// one read whole (show, serve, mcp), and no graph: its entities and
// relationships are never read.
func TestSourceGraphRAGSearchOnly(t *testing.T) {
	ctx := context.Background()
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	read := func(searchOnly bool) ([]globalsearch.Summary, []globalsearch.Entity, []globalsearch.Relationship) {
		idx, ns, err := Source{GraphRAG: &GraphRAGOptions{Dir: dir, SearchOnly: searchOnly}}.Open(ctx)
		require.NoError(t, err)
		snap, err := idx.Open(ctx, ns)
		require.NoError(t, err)
		sums, err := snap.Summaries(ctx)
		require.NoError(t, err)
		graph, ok := snap.(globalsearch.GraphSnapshot)
		require.True(t, ok, "an in-memory folder reads its graph")
		ents, err := graph.Entities(ctx)
		require.NoError(t, err)
		rels, err := graph.Relationships(ctx)
		require.NoError(t, err)
		return sums, ents, rels
	}
	tests := []struct {
		name       string
		searchOnly bool
		wantGraph  bool
	}{
		{"whole", false, true},
		{"search only", true, false},
	}
	wholeSums, _, _ := read(false)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sums, ents, rels := read(tc.searchOnly)
			assert.Equal(t, wholeSums, sums)
			assert.Equal(t, tc.wantGraph, len(ents) > 0, "entities")
			assert.Equal(t, tc.wantGraph, len(rels) > 0, "relationships")
		})
	}
}
