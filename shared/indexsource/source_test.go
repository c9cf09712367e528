package indexsource

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/graphragtest"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

func TestSourceTable(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "idx")
	require.NoError(t, store.CreateTables(ctx, testenv.DynamoDBClient(t, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")), store.Tables{Index: "idx"}))
	require.NoError(t, s.ReplaceNamespace(ctx, "default", smallIndex().Records))

	idx, ns, err := Source{Table: "idx"}.Open(ctx)
	require.NoError(t, err)
	assert.Empty(t, ns, "a table holds many namespaces: the request's defaults choose one (docs/contract.md#request)")
	snap, err := idx.Open(ctx, "default")
	require.NoError(t, err)
	sums, err := snap.Summaries(ctx)
	require.NoError(t, err)
	assert.Len(t, sums, 3)
}

// TestSourceGraphRAG: a project root reads its output/, Namespace names
// the namespace the folder is read into, Note hears what was read, and
// every mistake is invalid input.
func TestSourceGraphRAG(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	out := writeFolder(t, filepath.Join(root, "output"))
	open := func(s Source) (globalsearch.Index, string, []string, error) {
		var notes []string
		s.Note = func(line string) { notes = append(notes, line) }
		idx, ns, err := s.Open(ctx)
		return idx, ns, notes, err
	}

	t.Run("namespace", func(t *testing.T) {
		src := Source{GraphRAG: &GraphRAGOptions{Dir: root}, Namespace: "harbour"}
		assert.Equal(t, "harbour", src.ReadNamespace())
		idx, ns, notes, err := open(src)
		require.NoError(t, err)
		assert.Equal(t, "harbour", ns)
		assert.Equal(t, []string{"--graphrag " + out + ": 3 summaries (2 leaves), 2 of 2 claims, 2 chunks"}, notes, "what was read")
		snap, err := idx.Open(ctx, "harbour")
		require.NoError(t, err)
		sums, err := snap.Summaries(ctx)
		require.NoError(t, err)
		assert.Len(t, sums, 3)
	})
	t.Run("another namespace is named, not empty", func(t *testing.T) {
		src := Source{GraphRAG: &GraphRAGOptions{Dir: out}}
		assert.Equal(t, "default", src.ReadNamespace())
		idx, _, _, err := open(src)
		require.NoError(t, err)
		_, err = idx.Open(ctx, "other")
		assert.ErrorContains(t, err, `the GraphRAG output folder `+out+` (read in memory) holds namespace "default", not "other"`)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	})
	t.Run("claims left out are counted", func(t *testing.T) {
		dir := writeFolder(t, filepath.Join(t.TempDir(), "output"))
		graphragtest.WriteRows(t, dir, "covariates.parquet", []testCovariate{
			{ID: "k1", SubjectID: "FLEET", Description: "the fleet shrank by half", TextUnitID: "t1", SourceText: "Half the boats were laid up."},
			{ID: "k9", SubjectID: "NOBODY", Description: "no such entity", TextUnitID: "t1", SourceText: "Quotas fell again."},
		})
		_, _, notes, err := open(Source{GraphRAG: &GraphRAGOptions{Dir: dir}})
		require.NoError(t, err)
		assert.Equal(t, []string{"--graphrag " + dir + ": 3 summaries (2 leaves), 1 of 2 claims, 1 chunk; 1 claim not stored (`globalsearch import graphrag --dir " + dir + " --out FILE` lists why)"}, notes)
	})
	t.Run("import warnings are told", func(t *testing.T) {
		dir := t.TempDir()
		graphragtest.WriteRows(t, dir, "community_reports.parquet", []testReport{
			{Community: 0, Level: 0, Parent: -1, Title: "Root", Summary: "root summary"},
			{Community: 1, Level: 1, Parent: 7, Title: "Orphan", Summary: "a parent without a report"},
		})
		_, _, notes, err := open(Source{GraphRAG: &GraphRAGOptions{Dir: dir}})
		require.NoError(t, err)
		require.Greater(t, len(notes), 1)
		assert.Contains(t, notes[1], "--graphrag "+dir+": warning: ")
	})

	empty := t.TempDir()
	require.NoError(t, parquet.WriteFile(filepath.Join(empty, "community_reports.parquet"), []testReport{}))
	for _, tc := range []struct {
		name string
		src  Source
		want string
	}{
		{"bad --excerpts", Source{GraphRAG: &GraphRAGOptions{Dir: root, Excerpts: "all"}}, `--excerpts must be "source-text", "text-unit" or "none"`},
		{"bad --content", Source{GraphRAG: &GraphRAGOptions{Dir: root, Content: "title"}}, `--content must be "summary" or "full_content"`},
		{"bad namespace", Source{GraphRAG: &GraphRAGOptions{Dir: root}, Namespace: "Bad NS"}, globalsearch.NamespaceRule},
		{"missing folder", Source{GraphRAG: &GraphRAGOptions{Dir: filepath.Join(root, "nope")}}, "GraphRAG output folder " + filepath.Join(root, "nope") + ": no such folder"},
		{"not a GraphRAG folder", Source{GraphRAG: &GraphRAGOptions{Dir: t.TempDir()}}, "is not a GraphRAG output folder: neither it nor "},
		{"a parquet file", Source{GraphRAG: &GraphRAGOptions{Dir: filepath.Join(out, "entities.parquet")}}, "entities.parquet is a parquet file: give the GraphRAG output folder that holds it (" + out + ")"},
		{"no reports", Source{GraphRAG: &GraphRAGOptions{Dir: empty}}, "--graphrag " + empty + ": no community reports to search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := open(tc.src)
			assert.ErrorContains(t, err, tc.want)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		})
	}
}
