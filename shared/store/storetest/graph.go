package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The GraphRAG graph of a namespace (docs/contract.md#entities): every
// store keeps it beside the records, and the chunks' text units and
// document titles, and refuses a record over the bounds as invalid input.

func graphRecords() globalsearch.Records {
	r := sampleRecords()
	r.Chunks[0].TextUnitID, r.Chunks[0].DocumentTitle = "unit-1", "The first document"
	r.Entities = []globalsearch.Entity{
		{ID: "e-1", Title: "SCROOGE", Type: "PERSON", Description: "A miser: 中文 and café.", Degree: 4, CommunityIDs: []string{"root", "a-leaf"}},
		{ID: "e-2", Title: "MARLEY", CommunityIDs: []string{}},
	}
	r.Relationships = []globalsearch.Relationship{
		{ID: "r-1", Source: "MARLEY", Target: "SCROOGE", Description: "Former partner.", Weight: 2.5, CommunityIDs: []string{"root"}},
	}
	return r
}

func testGraphRoundTrip(t *testing.T, s Store) {
	ctx := context.Background()
	want := graphRecords()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns-g", want))
	AssertNamespace(t, s, "ns-g", want)
	snap, err := s.Open(ctx, "ns-g")
	require.NoError(t, err)
	g, ok := snap.(globalsearch.GraphSnapshot)
	require.True(t, ok, "every store reads the graph")
	entities, err := g.Entities(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, want.Entities, entities)
	rels, err := g.Relationships(ctx)
	require.NoError(t, err)
	assert.Equal(t, want.Relationships, rels)

	// A replace without a graph leaves none of the old one.
	require.NoError(t, s.ReplaceNamespace(ctx, "ns-g", sampleRecords()))
	snap, err = s.Open(ctx, "ns-g")
	require.NoError(t, err)
	entities, err = snap.(globalsearch.GraphSnapshot).Entities(ctx)
	require.NoError(t, err)
	assert.Empty(t, entities)
}

func testGraphBounds(t *testing.T, s Store) {
	ctx := context.Background()
	many := make([]string, globalsearch.MaxGraphCommunities+1)
	for i := range many {
		many[i] = "root"
	}
	tests := []struct {
		name   string
		change func(r *globalsearch.Records)
		want   string
	}{
		{"an entity over the byte bound", func(r *globalsearch.Records) {
			r.Entities[0].Description = strings.Repeat("x", globalsearch.MaxGraphRecordBytes)
		}, "an entity or relationship holds at most"},
		{"a relationship over the byte bound", func(r *globalsearch.Records) {
			r.Relationships[0].Description = strings.Repeat("x", globalsearch.MaxGraphRecordBytes)
		}, "an entity or relationship holds at most"},
		{"an entity in too many communities", func(r *globalsearch.Records) { r.Entities[0].CommunityIDs = many }, `field "communityIds" names`},
		{"an entity without a title", func(r *globalsearch.Records) { r.Entities[1].Title = "" }, `field "title" is required`},
		{"a relationship without an end", func(r *globalsearch.Records) { r.Relationships[0].Target = "" }, `fields "source" and "target" are required`},
		{"a repeated entity id", func(r *globalsearch.Records) { r.Entities[1].ID = r.Entities[0].ID }, "duplicate id"},
		{"a forged relationship id", func(r *globalsearch.Records) { r.Relationships[0].ID = "r|1" }, `field "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := graphRecords()
			tt.change(&r)
			err := s.ReplaceNamespace(ctx, "ns-bounds", r)
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), tt.want)
			sums, err := s.Summaries(ctx, "ns-bounds")
			require.NoError(t, err)
			assert.Empty(t, sums, "nothing written")
		})
	}
}
