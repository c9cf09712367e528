package graphrag

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestDetectAndOutputDir: what a path is to GraphRAG, and the output
// folder a search of it reads; every other path is invalid input saying
// what to give.
func TestDetectAndOutputDir(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, ProjectOutput)
	require.NoError(t, os.Mkdir(out, 0o755))
	writeV3(t, out)
	v1 := t.TempDir()
	writeV1(t, v1)
	plain := t.TempDir()
	renamed := filepath.Join(t.TempDir(), "reports.bin")
	data, err := os.ReadFile(filepath.Join(out, "community_reports.parquet"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(renamed, data, 0o644))
	jsonFile := filepath.Join(plain, "index.json")
	require.NoError(t, os.WriteFile(jsonFile, []byte(`{"summaries": []}`), 0o644))

	tests := []struct {
		name    string
		path    string
		layout  Layout
		wantDir string
		wantErr string
	}{
		{"output folder", out, OutputFolder, out, ""},
		{"GraphRAG 1.x names", v1, OutputFolder, v1, ""},
		{"project root", root, ProjectRoot, out, ""},
		{"parquet file by name", filepath.Join(out, "entities.parquet"), ParquetFile, "", "entities.parquet is a parquet file: give the GraphRAG output folder that holds it (" + out + ")"},
		{"parquet file by its magic", renamed, ParquetFile, "", "reports.bin is a parquet file"},
		{"index file", jsonFile, NotGraphRAG, "", "is not a GraphRAG output folder"},
		{"other folder", plain, NotGraphRAG, "", plain + " is not a GraphRAG output folder: neither it nor " + filepath.Join(plain, "output") + " holds community_reports.parquet or create_final_community_reports.parquet"},
		{"missing", filepath.Join(plain, "nope"), NotGraphRAG, "", "GraphRAG output folder " + filepath.Join(plain, "nope") + ": no such folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.layout, Detect(tc.path))
			dir, err := OutputDir(tc.path)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.wantDir, dir)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		})
	}
}
