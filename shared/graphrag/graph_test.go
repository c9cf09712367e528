package graphrag

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/graphragtest"
)

func TestImportReadsTheGraph(t *testing.T) {
	tests := []struct {
		name      string
		write     func(t *testing.T, dir string)
		entities  map[string][]string // id: community ids
		relations map[string][]string
		titles    map[string]string // document id: title
	}{
		{
			name:      "entities, relationships and titles, placed by entity_ids and relationship_ids",
			write:     func(t *testing.T, dir string) { graphragtest.WriteGraph(t, dir) },
			entities:  map[string][]string{"e1": {"0", "1"}, "e2": {"0", "2"}},
			relations: map[string][]string{"r1": {"0"}},
			titles:    map[string]string{"d1": "Harbour report", "d2": "Energy report"},
		},
		{
			name: "no relationship_ids: a relationship is where both its ends are",
			write: func(t *testing.T, dir string) {
				graphragtest.WriteGraph(t, dir)
				graphragtest.WriteRows(t, dir, "communities.parquet", []graphragtest.Community{
					{Community: 0, Level: 0, Parent: -1, EntityIDs: []string{"e1", "e2"}},
					{Community: 1, Level: 1, Parent: 0, EntityIDs: []string{"e1", "e2"}},
					{Community: 2, Level: 1, Parent: 0, EntityIDs: []string{"e2"}},
				})
			},
			entities:  map[string][]string{"e1": {"0", "1"}, "e2": {"0", "1", "2"}},
			relations: map[string][]string{"r1": {"0", "1"}},
			titles:    map[string]string{"d1": "Harbour report", "d2": "Energy report"},
		},
		{
			name: "without the graph files: entities of entities.parquet alone, no titles",
			write: func(t *testing.T, dir string) {
				graphragtest.WriteGraph(t, dir)
				for _, f := range []string{"relationships.parquet", "documents.parquet"} {
					require.NoError(t, os.Remove(filepath.Join(dir, f)))
				}
			},
			entities:  map[string][]string{"e1": {"0", "1"}, "e2": {"0", "2"}},
			relations: map[string][]string{},
			titles:    map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.write(t, dir)
			records, report, err := Import(context.Background(), dir, Options{Excerpts: ExcerptsTextUnit})
			require.NoError(t, err)
			assert.Empty(t, report.Warnings)
			got := map[string][]string{}
			for _, e := range records.Entities {
				got[e.ID] = e.CommunityIDs
				assert.NotEmpty(t, e.Description, "entity %s keeps its description", e.ID)
			}
			assert.Equal(t, tt.entities, got)
			rels := map[string][]string{}
			for _, r := range records.Relationships {
				rels[r.ID] = r.CommunityIDs
			}
			assert.Equal(t, tt.relations, rels)
			assert.Equal(t, len(tt.relations), report.Relationships)
			for _, c := range records.Chunks {
				assert.Equal(t, c.ID, c.TextUnitID, "a whole text unit is its own unit")
				assert.Equal(t, tt.titles[c.DocumentID], c.DocumentTitle, "chunk %s", c.ID)
			}
		})
	}
}

func TestImportExcerptsNameTheirTextUnit(t *testing.T) {
	dir := graphragtest.WriteGraph(t, t.TempDir())
	records, _, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	require.NotEmpty(t, records.Chunks)
	for _, c := range records.Chunks {
		assert.NotEqual(t, c.ID, c.TextUnitID, "an excerpt's id is its own")
		assert.True(t, strings.HasPrefix(c.ID, c.TextUnitID), "excerpt %s leads with its unit %s", c.ID, c.TextUnitID)
		assert.NotEmpty(t, c.DocumentTitle)
	}
}

func TestImportFitsTheGraphAndSkipsBadRows(t *testing.T) {
	dir := graphragtest.WriteGraph(t, t.TempDir())
	long := strings.Repeat("é", globalsearch.MaxGraphRecordBytes)
	graphragtest.WriteRows(t, dir, "entities.parquet", []graphragtest.GraphEntity{
		{ID: "e1", Title: "FLEET", Description: long},
		{ID: "e2", Title: "GRID"},
		{ID: "e2", Title: "GRID AGAIN"},
		{ID: "bad|id", Title: "FORGED"},
	})
	graphragtest.WriteRows(t, dir, "relationships.parquet", []graphragtest.Relationship{{ID: "r1", Source: "FLEET", Target: "GRID", Description: long}, {ID: "r2", Source: "FLEET"}})
	records, report, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	require.NoError(t, records.Validate(), "what an import cuts, a store takes")
	require.Len(t, records.Entities, 2)
	require.Len(t, records.Relationships, 1)
	assert.Less(t, len(records.Entities[0].Description), len(long))
	assert.True(t, strings.HasPrefix(long, records.Entities[0].Description), "cut at a character")
	assert.Less(t, len(records.Relationships[0].Description), len(long))
	require.Len(t, report.Warnings, 3)
	assert.Contains(t, report.Warnings[0], "entities.parquet: 2 rows")
	assert.Contains(t, report.Warnings[1], "relationships.parquet: 1 rows")
	assert.Contains(t, report.Warnings[2], "2 entities or relationships were cut")
}

func TestImportGraphOfABadFileIsInvalidInput(t *testing.T) {
	for _, name := range []string{"relationships.parquet", "documents.parquet"} {
		t.Run(name, func(t *testing.T) {
			dir := graphragtest.WriteGraph(t, t.TempDir())
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("not parquet"), 0o644))
			_, _, err := Import(context.Background(), dir, Options{})
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), name)
		})
	}
}

// idTitle is the two columns readColumn reads of the corpus.
type idTitle struct {
	ID    string `parquet:"id"`
	Title string `parquet:"title,optional"`
}

// readColumn reads the id or title column of a parquet file of the
// corpus, by parquet-go's row reader rather than the importer's.
func readColumn(t *testing.T, path, name string) []string {
	t.Helper()
	rows, err := parquet.ReadFile[idTitle](path)
	require.NoError(t, err)
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, map[string]string{"id": r.ID, "title": r.Title}[name])
	}
	return out
}

func TestImportChristmasCarolGraph(t *testing.T) {
	dir := corpusDir(t)
	records, report, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	assert.Empty(t, report.Warnings)
	assert.Len(t, records.Entities, len(readColumn(t, filepath.Join(dir, "entities.parquet"), "id")))
	assert.Len(t, records.Relationships, len(readColumn(t, filepath.Join(dir, "relationships.parquet"), "id")))
	units := readColumn(t, filepath.Join(dir, "text_units.parquet"), "id")
	titles := readColumn(t, filepath.Join(dir, "documents.parquet"), "title")
	require.NotEmpty(t, titles)
	for _, c := range records.Chunks {
		assert.Contains(t, units, c.TextUnitID, "chunk %s names a text unit of text_units.parquet", c.ID)
		assert.Contains(t, titles, c.DocumentTitle, "chunk %s names its document's title", c.ID)
	}
	summaries := map[string]bool{}
	for _, s := range records.Summaries {
		summaries[s.ID] = true
	}
	placed := 0
	for _, e := range records.Entities {
		for _, c := range e.CommunityIDs {
			assert.True(t, summaries[c], "entity %s: community %s has a summary", e.ID, c)
		}
		if len(e.CommunityIDs) > 0 {
			placed++
		}
	}
	assert.Greater(t, placed, len(records.Entities)/2, "most entities are in a community")
	assert.True(t, slices.ContainsFunc(records.Relationships, func(r globalsearch.Relationship) bool { return len(r.CommunityIDs) > 0 }))
}
