// Package indexfiletest holds the small index files the tests of the
// CLI, the local server, MCP and the index sources share, so that each
// reads the same three communities and none keeps a copy of its own.
package indexfiletest

import (
	"path/filepath"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// Small is an index file of namespace "tiny": a root over two leaves, one
// claim on a leaf citing one chunk. Each call returns a fresh copy, which
// a test may change.
func Small() indexfile.File {
	return indexfile.File{Namespace: "tiny", Records: globalsearch.Records{
		Summaries: []globalsearch.Summary{
			{ID: "root", Level: 0, Summary: "The harbour economy changed over the decade."},
			{ID: "fish", Level: 1, ParentCommunityID: "root", Summary: "Fishing quotas were cut and the fleet shrank."},
			{ID: "solar", Level: 1, ParentCommunityID: "root", Summary: "Solar farms replaced diesel generators on the islands."},
		},
		Claims: []globalsearch.Claim{{ID: "k1", CommunityID: "solar", Subject: "Grid", Object: "Solar", Description: "solar share rose", SourceChunkIDs: []string{"c1"}}},
		Chunks: []globalsearch.Chunk{{ID: "c1", Text: "By 2030 solar met half of demand."}},
	}}
}

// Titled is Small with community titles.
func Titled() indexfile.File {
	f := Small()
	titles := map[string]string{"root": "Harbour economy", "fish": "Fisheries", "solar": "Island solar"}
	for i := range f.Records.Summaries {
		f.Records.Summaries[i].Title = titles[f.Records.Summaries[i].ID]
	}
	return f
}

// Graph is Titled with what a GraphRAG import adds: the chunk's text unit
// and document title, and the entities and relationships of the
// communities.
func Graph() indexfile.File {
	f := Titled()
	f.Records.Chunks[0].TextUnitID, f.Records.Chunks[0].DocumentID, f.Records.Chunks[0].DocumentTitle = "unit-7", "doc-1", "Island energy report"
	f.Records.Entities = []globalsearch.Entity{
		{ID: "e-grid", Title: "GRID", Type: "ORGANIZATION", Description: "The island grid.", Degree: 2, CommunityIDs: []string{"root", "solar"}},
		{ID: "e-fleet", Title: "FLEET", Type: "ORGANIZATION", Description: "The fishing fleet.", Degree: 1, CommunityIDs: []string{"root", "fish"}},
	}
	f.Records.Relationships = []globalsearch.Relationship{
		{ID: "r-1", Source: "GRID", Target: "FLEET", Description: "The fleet's harbour runs on the grid.", Weight: 2, CommunityIDs: []string{"root"}},
	}
	return f
}

// Write saves f as index.json in a directory the test removes, and
// returns its path.
func Write(t testing.TB, f indexfile.File) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.json")
	if err := indexfile.Save(path, f); err != nil {
		t.Fatalf("save index file: %v", err)
	}
	return path
}
