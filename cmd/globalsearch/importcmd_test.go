package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag/graphragtest"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// importTestReport is the smallest community_reports.parquet: a root and
// one child.
type importTestReport = graphragtest.Report

func runImportCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &cliEnv{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errOut, lookupEnv: func(string) (string, bool) { return "", false }}
	code = runMain(context.Background(), env, append([]string{"import"}, args...))
	return code, out.String(), errOut.String()
}

func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, parquet.WriteFile(filepath.Join(dir, "community_reports.parquet"), []importTestReport{
		{Community: 0, Level: 0, Parent: -1, Title: "Root", Summary: "root summary"},
		{Community: 1, Level: 1, Parent: 0, Title: "Child", Summary: "child summary"},
	}))
	out := filepath.Join(t.TempDir(), "index.json")
	notParquet := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notParquet, "community_reports.parquet"), []byte("community,level\n"), 0o644))
	cycle := t.TempDir()
	require.NoError(t, parquet.WriteFile(filepath.Join(cycle, "community_reports.parquet"), []importTestReport{
		{Community: 0, Level: 0, Parent: -1, Title: "Root", Summary: "root summary"},
		{Community: 1, Level: 1, Parent: 2, Title: "One", Summary: "one"},
		{Community: 2, Level: 2, Parent: 1, Title: "Two", Summary: "two"},
	}))
	cycleOut := filepath.Join(t.TempDir(), "cycle.json")
	empty := t.TempDir()
	require.NoError(t, parquet.WriteFile(filepath.Join(empty, "community_reports.parquet"), []importTestReport{}))
	emptyOut := filepath.Join(t.TempDir(), "empty.json")

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{name: "no source", args: nil, wantCode: 2, wantStderr: "usage: globalsearch import graphrag"},
		{name: "unknown source", args: []string{"lightrag"}, wantCode: 2, wantStderr: "usage: globalsearch import graphrag"},
		{name: "no dir", args: []string{"graphrag", "--out", out}, wantCode: 2, wantStderr: "--dir is required"},
		{name: "no destination", args: []string{"graphrag", "--dir", dir}, wantCode: 2, wantStderr: "exactly one of --out and --table"},
		{name: "two destinations", args: []string{"graphrag", "--dir", dir, "--out", out, "--table", "t"}, wantCode: 2, wantStderr: "exactly one of --out and --table"},
		{name: "bad content", args: []string{"graphrag", "--dir", dir, "--out", out, "--content", "all"}, wantCode: 2, wantStderr: `--content must be "summary" or "full_content"`},
		{name: "bad excerpts", args: []string{"graphrag", "--dir", filepath.Join(dir, "nope"), "--out", out, "--excerpts", "chunks"}, wantCode: 2, wantStderr: `--excerpts must be "source-text", "text-unit" or "none"`},
		{name: "bad namespace", args: []string{"graphrag", "--dir", dir, "--out", out, "--namespace", "Bad NS"}, wantCode: 2, wantStderr: "--namespace must be"},
		{name: "table without namespace", args: []string{"graphrag", "--dir", dir, "--table", "t"}, wantCode: 2, wantStderr: "--table needs --namespace"},
		{name: "create-table without table", args: []string{"graphrag", "--dir", dir, "--out", out, "--create-table"}, wantCode: 2, wantStderr: "--create-table needs --table"},
		{name: "missing folder", args: []string{"graphrag", "--dir", filepath.Join(dir, "nope"), "--out", out}, wantCode: 2, wantStderr: "nope: no such folder"},
		{name: "not parquet", args: []string{"graphrag", "--dir", notParquet, "--out", out}, wantCode: 2, wantStderr: "community_reports.parquet: not a readable parquet file"},
		{name: "parent cycle", args: []string{"graphrag", "--dir", cycle, "--out", cycleOut}, wantCode: 2, wantStderr: "parentCommunityId links form a cycle: 1 -> 2 -> 1"},
		{name: "no reports", args: []string{"graphrag", "--dir", empty, "--out", emptyOut}, wantCode: 2, wantStderr: "no community reports to import: the records hold no summaries"},
		{
			name:       "excerpts none",
			args:       []string{"graphrag", "--dir", dir, "--out", filepath.Join(t.TempDir(), "none.json"), "--excerpts", "none"},
			wantStdout: []string{"chunks:    0 (--excerpts none: claims cite nothing)"},
			wantStderr: "import: opened community_reports.parquet",
		},
		{
			name:       "writes index file",
			args:       []string{"graphrag", "--dir", dir, "--out", out, "--namespace", "carol"},
			wantStdout: []string{"summaries: 2 (1 leaves; per level 0:1 1:1; 0 blank)", "claims:    0 attached of 0 covariates", "wrote namespace carol to " + out, "warning: no covariates.parquet"},
			wantStderr: "import: opened community_reports.parquet",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runImportCLI(t, tc.args...)
			assert.Equal(t, tc.wantCode, code, "stderr: %s", stderr)
			for _, want := range tc.wantStdout {
				assert.Contains(t, stdout, want)
			}
			assert.Contains(t, stderr, tc.wantStderr)
		})
	}

	assert.NoFileExists(t, cycleOut, "an import that fails writes nothing")
	assert.NoFileExists(t, emptyOut, "an import without summaries writes no file that run would refuse")
	f, err := indexfile.Load(out)
	require.NoError(t, err)
	assert.Equal(t, "carol", f.Namespace)
	require.Len(t, f.Summaries, 2)
	assert.Equal(t, "0", f.Summaries[1].ParentCommunityID)
}

func TestImportToTable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, parquet.WriteFile(filepath.Join(dir, "community_reports.parquet"), []importTestReport{
		{Community: 0, Level: 0, Parent: -1, Title: "Root", Summary: "root summary"},
		{Community: 1, Level: 1, Parent: 0, Title: "Child", Summary: "child summary"},
	}))
	s := minidynEnv(t, "idx")
	ctx := context.Background()
	require.NoError(t, store.CreateTables(ctx, testenv.DynamoDBClient(t, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")), store.Tables{Index: "idx"}))

	code, stdout, stderr := runImportCLI(t, "graphrag", "--dir", dir, "--table", "idx", "--namespace", "carol")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "namespace carol in table idx: wrote 2 summaries")
	sums, err := s.Summaries(ctx, "carol")
	require.NoError(t, err)
	assert.Len(t, sums, 2)
}
