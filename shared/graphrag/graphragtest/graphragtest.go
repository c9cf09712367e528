// Package graphragtest writes small Microsoft GraphRAG output folders for
// the tests of the packages that read one (the index sources, the CLI), so
// that each reads the same rows and none keeps a copy of its own.
package graphragtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// The rows of the parquet files, with the columns the importer reads.
type (
	Report struct {
		Community int64  `parquet:"community"`
		Level     int64  `parquet:"level"`
		Parent    int64  `parquet:"parent"`
		Title     string `parquet:"title"`
		Summary   string `parquet:"summary"`
	}
	Community struct {
		Community int64    `parquet:"community"`
		Level     int64    `parquet:"level"`
		Parent    int64    `parquet:"parent"`
		EntityIDs []string `parquet:"entity_ids,list"`
	}
	Entity struct {
		ID    string `parquet:"id"`
		Title string `parquet:"title"`
	}
	Covariate struct {
		ID          string `parquet:"id"`
		SubjectID   string `parquet:"subject_id"`
		ObjectID    string `parquet:"object_id"`
		Description string `parquet:"description"`
		TextUnitID  string `parquet:"text_unit_id"`
		SourceText  string `parquet:"source_text"`
	}
	// GraphEntity, Relationship, GraphCommunity and Document are the
	// rows of the graph files a show reads (WriteGraph).
	GraphEntity struct {
		ID          string `parquet:"id"`
		Title       string `parquet:"title"`
		Type        string `parquet:"type"`
		Description string `parquet:"description"`
		Degree      int64  `parquet:"degree"`
	}
	Relationship struct {
		ID          string  `parquet:"id"`
		Source      string  `parquet:"source"`
		Target      string  `parquet:"target"`
		Description string  `parquet:"description"`
		Weight      float64 `parquet:"weight"`
	}
	GraphCommunity struct {
		Community       int64    `parquet:"community"`
		Level           int64    `parquet:"level"`
		Parent          int64    `parquet:"parent"`
		EntityIDs       []string `parquet:"entity_ids,list"`
		RelationshipIDs []string `parquet:"relationship_ids,list"`
	}
	Document struct {
		ID    string `parquet:"id"`
		Title string `parquet:"title"`
	}
	TextUnit struct {
		ID         string `parquet:"id"`
		Text       string `parquet:"text"`
		DocumentID string `parquet:"document_id"`
	}
)

// WriteRows writes rows as dir/name.
func WriteRows[T any](t testing.TB, dir, name string, rows []T) {
	t.Helper()
	if err := parquet.WriteFile(filepath.Join(dir, name), rows); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
}

// WriteFolder writes a GraphRAG output folder at dir: a root over two
// leaves, one claim on each leaf, each citing a text unit. It returns dir.
func WriteFolder(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	WriteRows(t, dir, "community_reports.parquet", []Report{
		{Community: 0, Level: 0, Parent: -1, Title: "Harbour", Summary: "The harbour economy changed over the decade."},
		{Community: 1, Level: 1, Parent: 0, Title: "Fisheries", Summary: "Fishing quotas were cut and the fleet shrank."},
		{Community: 2, Level: 1, Parent: 0, Title: "Solar", Summary: "Solar farms replaced diesel generators on the islands."},
	})
	WriteRows(t, dir, "communities.parquet", []Community{
		{Community: 0, Level: 0, Parent: -1, EntityIDs: []string{"e1", "e2"}},
		{Community: 1, Level: 1, Parent: 0, EntityIDs: []string{"e1"}},
		{Community: 2, Level: 1, Parent: 0, EntityIDs: []string{"e2"}},
	})
	WriteRows(t, dir, "entities.parquet", []Entity{{ID: "e1", Title: "FLEET"}, {ID: "e2", Title: "GRID"}})
	WriteRows(t, dir, "covariates.parquet", []Covariate{
		{ID: "k1", SubjectID: "FLEET", ObjectID: "QUOTA", Description: "the fleet shrank by half", TextUnitID: "t1", SourceText: "Half the boats were laid up."},
		{ID: "k2", SubjectID: "GRID", ObjectID: "SOLAR", Description: "solar met half of demand", TextUnitID: "t2", SourceText: "By 2030 solar met half of demand."},
	})
	WriteRows(t, dir, "text_units.parquet", []TextUnit{
		{ID: "t1", Text: "The harbour report. Half the boats were laid up. Quotas fell again.", DocumentID: "d1"},
		{ID: "t2", Text: "The energy report. By 2030 solar met half of demand.", DocumentID: "d2"},
	})
	return dir
}

// WriteGraph writes WriteFolder's folder with its graph: described
// entities, one relationship in the root community, and the documents'
// titles. It returns dir.
func WriteGraph(t testing.TB, dir string) string {
	t.Helper()
	WriteFolder(t, dir)
	WriteRows(t, dir, "entities.parquet", []GraphEntity{
		{ID: "e1", Title: "FLEET", Type: "ORGANIZATION", Description: "The island's fishing fleet.", Degree: 1},
		{ID: "e2", Title: "GRID", Type: "ORGANIZATION", Description: "The island grid.", Degree: 1},
	})
	WriteRows(t, dir, "communities.parquet", []GraphCommunity{
		{Community: 0, Level: 0, Parent: -1, EntityIDs: []string{"e1", "e2"}, RelationshipIDs: []string{"r1"}},
		{Community: 1, Level: 1, Parent: 0, EntityIDs: []string{"e1"}, RelationshipIDs: []string{}},
		{Community: 2, Level: 1, Parent: 0, EntityIDs: []string{"e2"}, RelationshipIDs: []string{}},
	})
	WriteRows(t, dir, "relationships.parquet", []Relationship{{ID: "r1", Source: "FLEET", Target: "GRID", Description: "The harbour runs on the grid.", Weight: 3}})
	WriteRows(t, dir, "documents.parquet", []Document{{ID: "d1", Title: "Harbour report"}, {ID: "d2", Title: "Energy report"}})
	return dir
}
