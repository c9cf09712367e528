package graphrag

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// fuzzKinds are the files FuzzImport replaces, by the index it is given.
var fuzzKinds = []string{"community_reports.parquet", "communities.parquet", "entities.parquet", "covariates.parquet", "text_units.parquet"}

// fuzzFolder is the v3 folder of writeV3, each file as bytes.
func fuzzFolder(t *testing.T) map[string][]byte {
	dir := t.TempDir()
	writeV3(t, dir)
	files := map[string][]byte{}
	for _, name := range fuzzKinds {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		files[name] = data
	}
	return files
}

// FuzzImport imports the folder of writeV3 with one of its files replaced
// by the fuzzer's bytes. Whatever the bytes, the import must not panic, must
// allocate in proportion to them, and must either fail with invalid input or
// return records the search accepts.
func FuzzImport(f *testing.F) {
	var base map[string][]byte
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		if base == nil {
			base = fuzzFolder(t)
		}
		dir := t.TempDir()
		target := fuzzKinds[int(kind)%len(fuzzKinds)]
		for name, b := range base {
			if name == target {
				b = data
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
		}
		var records globalsearch.Records
		var err error
		alloc := allocated(func() { records, _, err = Import(context.Background(), dir, Options{}) })
		// The decoder's page buffers and the checks' decompression take a
		// bounded multiple of the file (maxInflation) and a constant.
		limit := uint64(maxInflation*len(data)*8 + 64<<20)
		assert.LessOrEqual(t, alloc, limit, "%d bytes of %s allocate %d", len(data), target, alloc)
		if err != nil {
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%v", err)
			return
		}
		assert.NoError(t, records.Validate())
		assert.NoError(t, globalsearch.CheckHierarchy(records.Summaries))
	})
}

// TestFuzzImportSeeds writes the seed corpus of FuzzImport (each file of the
// v3 folder, in each codec, and with a footer that lies) when
// WRITE_FUZZ_SEEDS=1, and otherwise checks that the committed one is there.
func TestFuzzImportSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzImport")
	if os.Getenv("WRITE_FUZZ_SEEDS") != "1" {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.NotEmpty(t, entries, "seed corpus of FuzzImport")
		return
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	seeds := map[string][]byte{}
	for i, name := range fuzzKinds {
		data := fuzzFolder(t)[name]
		seeds[name] = data
		writeSeed(t, dir, "valid-"+name, uint8(i), data)
	}
	for _, codec := range []struct {
		name  string
		codec parquet.WriterOption
	}{{"snappy", parquet.Compression(&parquet.Snappy)}, {"gzip", parquet.Compression(&parquet.Gzip)}, {"zstd", parquet.Compression(&parquet.Zstd)}, {"dictionary", parquet.DefaultEncoding(&parquet.RLEDictionary)}} {
		writeSeed(t, dir, "reports-"+codec.name, 0, smallReports(t, codec.codec))
	}
	writeSeed(t, dir, "reports-too-many-rows", 0, editFooter(t, smallReports(t), func(md *format.FileMetaData) { md.NumRows = 1 << 61 }))
}

func writeSeed(t *testing.T, dir, name string, kind uint8, data []byte) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", kind, data)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
}
