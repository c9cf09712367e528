package graphrag

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A search-only import (Options.SearchOnly) holds what a search reads, the
// same as a whole import's, and nothing of the graph: no entities, no
// relationships and no document titles.
func TestImportSearchOnlyKeepsWhatSearchReads(t *testing.T) {
	dir := corpusDir(t)
	for _, content := range []Content{ContentSummary, ContentFullContent} {
		t.Run(string(content), func(t *testing.T) {
			whole, wholeReport, err := Import(context.Background(), dir, Options{Content: content})
			require.NoError(t, err)
			search, report, err := Import(context.Background(), dir, Options{Content: content, SearchOnly: true})
			require.NoError(t, err)
			require.NotEmpty(t, whole.Entities, "the whole import has the graph")
			assert.Empty(t, search.Entities)
			assert.Empty(t, search.Relationships)
			assert.Zero(t, report.Relationships)
			assert.Zero(t, report.Documents)
			assert.Equal(t, whole.Summaries, search.Summaries)
			assert.Equal(t, whole.Claims, search.Claims)
			require.Len(t, search.Chunks, len(whole.Chunks))
			for i, c := range search.Chunks {
				assert.Empty(t, c.DocumentTitle)
				c.DocumentTitle = whole.Chunks[i].DocumentTitle
				assert.Equal(t, whole.Chunks[i], c)
			}
			assert.Equal(t, wholeReport.ClaimsAttached, report.ClaimsAttached)
			assert.Equal(t, wholeReport.Unmatched, report.Unmatched)
		})
	}
}

// A search-only import never opens the graph files, so a broken
// relationships.parquet or documents.parquet fails the whole import and
// not a search; without claims, entities.parquet is not read either.
func TestImportSearchOnlySkipsGraphFiles(t *testing.T) {
	src := corpusDir(t)
	tests := []struct {
		name   string
		broken []string
		drop   []string
	}{
		{"broken relationships", []string{"relationships.parquet"}, nil},
		{"broken documents", []string{"documents.parquet"}, nil},
		{"no claims, broken entities", []string{"entities.parquet"}, []string{"covariates.parquet"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{"communities.parquet", "community_reports.parquet", "covariates.parquet",
				"documents.parquet", "entities.parquet", "relationships.parquet", "text_units.parquet"} {
				data, err := os.ReadFile(filepath.Join(src, name))
				require.NoError(t, err)
				switch {
				case slices.Contains(tc.drop, name):
					continue
				case slices.Contains(tc.broken, name):
					data = []byte("not parquet")
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
			}
			_, _, err := Import(context.Background(), dir, Options{})
			require.Error(t, err, "the whole import reads the file")
			records, _, err := Import(context.Background(), dir, Options{SearchOnly: true})
			require.NoError(t, err)
			assert.NotEmpty(t, records.Summaries)
		})
	}
}
