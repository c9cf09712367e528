package indexsource

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestLoadFileGivenAGraphragPath: an index file path that is a GraphRAG
// output folder, a project root or one of its parquet files says what the
// path is and how to search it (the search flag) or import it.
func TestLoadFileGivenAGraphragPath(t *testing.T) {
	root := t.TempDir()
	out := writeFolder(t, filepath.Join(root, "output"))
	stray := filepath.Join(t.TempDir(), "data.parquet")
	require.NoError(t, parquet.WriteFile(stray, []testEntity{{ID: "e1", Title: "X"}}))
	importOut := "import it with `globalsearch import graphrag --dir " + out + " --out index.json`"
	paths := []struct {
		name, path, want string
	}{
		{"output folder", out, out + " is a GraphRAG output folder: search it with --graphrag " + out + ", or " + importOut},
		{"project root", root, root + " is a GraphRAG project root, whose output is in " + out + ": search it with --graphrag " + out + ", or " + importOut},
		{"parquet file", filepath.Join(out, "community_reports.parquet"), " is a parquet file of the GraphRAG output folder " + out + ": search it with --graphrag " + out},
		{"stray parquet file", stray, stray + " is a parquet file; a GraphRAG output folder holds community_reports.parquet: search or import that folder"},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			_, _, err := OpenFile(p.path, "--graphrag")
			assert.ErrorContains(t, err, "--index wants an index file (JSON), but ")
			assert.ErrorContains(t, err, p.want)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))

			// A command that cannot search a folder (ingest, invoke) only
			// says how to import it.
			_, err = LoadFile(p.path, "", "--out index.json")
			want, _, _ := strings.Cut(p.want, ": search it with")
			assert.ErrorContains(t, err, want)
			assert.NotContains(t, err.Error(), "--graphrag")
		})
	}
	t.Run("into a table", func(t *testing.T) {
		_, err := LoadFile(out, "", "--table idx --namespace NS")
		assert.ErrorContains(t, err, "import it with `globalsearch import graphrag --dir "+out+" --table idx --namespace NS`")
		assert.NotContains(t, err.Error(), "--graphrag")
	})
}

// TestOpenFile: an index file holds its namespace alone, and a corrupt
// hierarchy is kept for the first search, as a CorruptFileError of kind
// corrupt index.
func TestOpenFile(t *testing.T) {
	ctx := context.Background()
	path := writeIndex(t, smallIndex())
	idx, ns, err := OpenFile(path, "--graphrag")
	require.NoError(t, err)
	assert.Equal(t, "tiny", ns)
	_, err = idx.Open(ctx, "tiny")
	require.NoError(t, err)
	_, err = idx.Open(ctx, "other")
	assert.EqualError(t, err, `the index file `+path+` holds namespace "tiny", not "other": search "tiny" or leave the namespace out`)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))

	f := smallIndex()
	f.Summaries[1].ParentCommunityID = "nowhere"
	corrupt := writeIndex(t, f)
	idx, _, err = OpenFile(corrupt, "--graphrag")
	require.NoError(t, err, "refused at the first search, not at open")
	_, err = idx.Open(ctx, "tiny")
	var e *CorruptFileError
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, corrupt, e.Path)
	assert.True(t, strings.HasPrefix(err.Error(), "index file "+corrupt+": "), err.Error())
	assert.Equal(t, globalsearch.KindCorruptIndex, globalsearch.KindOf(err))
}
