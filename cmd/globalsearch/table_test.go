package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMissingTable: writing to or searching a table that does not exist
// names the table and how to create it; import --create-table creates it.
func TestMissingTable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, parquet.WriteFile(filepath.Join(dir, "community_reports.parquet"), []importTestReport{
		{Community: 0, Level: 0, Parent: -1, Title: "Root", Summary: "root summary"},
	}))
	s := minidynEnv(t, "absent")
	index := writeIndex(t, smallIndex())

	tests := []struct {
		name string
		args []string
	}{
		{"import", []string{"import", "graphrag", "--dir", dir, "--table", "absent", "--namespace", "carol"}},
		{"ingest", []string{"ingest", "--index", index, "--table", "absent"}},
		{"run", []string{"run", "--table", "absent", "--query", "q"}},
		{"plan", []string{"plan", "--table", "absent", "--query", "q"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, 1, runMain(context.Background(), env, tc.args))
			assert.Contains(t, errOut.String(), `the DynamoDB table "absent" does not exist`)
			assert.Contains(t, errOut.String(), "--create-table")
		})
	}

	code, stdout, stderr := runImportCLI(t, "graphrag", "--dir", dir, "--table", "absent", "--namespace", "carol", "--create-table")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "namespace carol in table absent: wrote 1 summaries")
	sums, err := s.Summaries(context.Background(), "carol")
	require.NoError(t, err)
	assert.Len(t, sums, 1)
}
