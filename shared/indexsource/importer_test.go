package indexsource

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

func TestImport(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	out := writeFolder(t, filepath.Join(root, "output"))
	opts, err := graphrag.ParseOptions("", "")
	require.NoError(t, err)

	t.Run("to a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "index.json")
		im := Import{Dir: out, Options: opts, Namespace: "harbour", Out: path}
		records, report, err := im.Read(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, report.Summaries)
		require.NoError(t, im.Write(ctx, records))
		f, err := indexfile.Load(path)
		require.NoError(t, err)
		assert.Equal(t, "harbour", f.Namespace)
		assert.Len(t, f.Summaries, 3)
	})
	t.Run("a project root names its output folder", func(t *testing.T) {
		_, _, err := Import{Dir: root, Options: opts, Out: filepath.Join(t.TempDir(), "i.json")}.Read(ctx)
		assert.ErrorContains(t, err, "a GraphRAG project root, whose output is in "+out+": give --dir "+out)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	})
	t.Run("no reports, nothing written", func(t *testing.T) {
		empty := t.TempDir()
		require.NoError(t, parquet.WriteFile(filepath.Join(empty, "community_reports.parquet"), []testReport{}))
		path := filepath.Join(t.TempDir(), "i.json")
		im := Import{Dir: empty, Options: opts, Out: path}
		records, _, err := im.Read(ctx)
		require.NoError(t, err, "the report is read, for the CLI to print")
		err = im.Write(ctx, records)
		assert.ErrorContains(t, err, "import "+empty+": no community reports to import")
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		assert.NoFileExists(t, path)
	})
}

func TestIngest(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "idx")
	ns, records, err := Ingest(ctx, writeIndex(t, smallIndex()), "idx", "", true)
	require.NoError(t, err)
	assert.Equal(t, "tiny", ns, "the file's namespace")
	assert.Len(t, records.Summaries, 3)
	ns, _, err = Ingest(ctx, writeIndex(t, smallIndex()), "idx", "other", false)
	require.NoError(t, err)
	assert.Equal(t, "other", ns)
	sums, err := s.Summaries(ctx, "other")
	require.NoError(t, err)
	assert.Len(t, sums, 3)

	// A corrupt hierarchy is refused before any AWS call.
	f := smallIndex()
	f.Summaries[1].ParentCommunityID = "nowhere"
	path := writeIndex(t, f)
	_, _, err = Ingest(ctx, path, "absent", "", false)
	var corrupt *CorruptFileError
	require.True(t, errors.As(err, &corrupt), "%v", err)
	assert.Equal(t, path, corrupt.Path)
}
