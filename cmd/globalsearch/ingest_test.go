package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// minidynEnv points the standard AWS configuration chain at a fresh
// minidyn, as a user would point it at DynamoDB Local, and returns a store
// over table to check what the CLI wrote. It sets process environment, so
// its tests do not run in parallel.
func minidynEnv(t *testing.T, table string) *store.Index {
	endpoint, _ := testenv.MinidynEndpoint(t)
	testenv.UseAWS(t, map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": endpoint})
	idx, err := store.NewIndex(store.NewClient(testenv.DynamoDBClient(t, endpoint)), table)
	require.NoError(t, err)
	return idx
}

func TestIngest(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "idx")
	full := smallIndex()
	path := writeIndex(t, full)

	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", path, "--table", "idx", "--create-table"}), errOut.String())
	assert.Equal(t, "namespace tiny in table idx: wrote 3 summaries, 1 claims, 1 chunks (records not in the file were deleted)\n", out.String())
	sums, err := s.Summaries(ctx, "tiny")
	require.NoError(t, err)
	assert.Len(t, sums, 3)

	// Ingesting a smaller file under another namespace name leaves tiny
	// alone; ingesting it again as tiny replaces it.
	small := indexfile.File{Namespace: "tiny", Records: globalsearch.Records{Summaries: full.Summaries[:1]}}
	smallPath := writeIndex(t, small)
	env, out, errOut = testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", smallPath, "--table", "idx", "--namespace", "other"}), errOut.String())
	assert.Contains(t, out.String(), "namespace other in table idx: wrote 1 summaries")
	env, _, errOut = testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", smallPath, "--table", "idx", "--create-table"}), errOut.String())
	sums, err = s.Summaries(ctx, "tiny")
	require.NoError(t, err)
	assert.Equal(t, small.Summaries, sums)
	chunks, err := s.Chunks(ctx, "tiny", []string{"c1"})
	require.NoError(t, err)
	assert.Empty(t, chunks, "records not in the new file are deleted")
	other, err := s.Summaries(ctx, "other")
	require.NoError(t, err)
	assert.Len(t, other, 1)
}

// TestRunFromTable searches what ingest uploaded: the same search a file
// gives, read through the DynamoDB store.
func TestRunFromTable(t *testing.T) {
	ctx := context.Background()
	minidynEnv(t, "idx")
	path := writeIndex(t, smallIndex())
	env, _, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", path, "--table", "idx", "--create-table"}), errOut.String())

	args := []string{"--query", "How did solar power change?", "--seed", "7", "--json"}
	fromFile, fileOut, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, fromFile, append([]string{"run", "--index", path}, args...)), errOut.String())
	fromTable, tableOut, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, fromTable, append([]string{"run", "--table", "idx", "--namespace", "tiny"}, args...)), errOut.String())

	var a, b globalsearch.Result
	require.NoError(t, json.Unmarshal(fileOut.Bytes(), &a))
	require.NoError(t, json.Unmarshal(tableOut.Bytes(), &b))
	assert.Equal(t, a.Status, b.Status)
	assert.Equal(t, a.Answer, b.Answer)
	assert.Equal(t, a.Diagnostics.Batches, b.Diagnostics.Batches)
}

func TestIngestUsage(t *testing.T) {
	path := writeIndex(t, smallIndex())
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, indexfile.Save(bad, indexfile.File{Namespace: "x", Records: globalsearch.Records{
		Summaries: []globalsearch.Summary{{ID: "dup"}, {ID: "dup"}},
	}}))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", []string{"--table", "t"}, "--index is required"},
		{"no table", []string{"--index", path}, "--table is required"},
		{"bad namespace", []string{"--index", path, "--table", "t", "--namespace", "Bad!"}, "--namespace must be"},
		{"invalid file", []string{"--index", bad, "--table", "t"}, "duplicate id"},
		{"missing file", []string{"--index", filepath.Join(t.TempDir(), "none.json"), "--table", "t"}, "read index file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, 2, runMain(context.Background(), env, append([]string{"ingest"}, tc.args...)))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

// TestEmptyNamespaceOfTable: searching a table for a namespace it does not
// hold ends no_results and says so, naming the namespaces that exist, and
// exits 3 (nothing to search), which a real no-match does not.
func TestEmptyNamespaceOfTable(t *testing.T) {
	ctx := context.Background()
	minidynEnv(t, "idx")
	path := writeIndex(t, smallIndex())
	env, _, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", path, "--table", "idx", "--create-table"}), errOut.String())

	tests := []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "--table", "idx", "--namespace", "tinny", "--query", "q"}},
		{"plan", []string{"plan", "--table", "idx", "--namespace", "tinny", "--query", "q"}},
		{"run without --namespace reads the default", []string{"run", "--table", "idx", "--query", "q"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			require.Equal(t, cmdutil.ExitNothingToSearch, runMain(ctx, env, tc.args), errOut.String())
			assert.Contains(t, out.String(), "holds no summaries; namespaces that exist: tiny")
			assert.Contains(t, errOut.String(), "nothing to search: namespace ")
		})
	}

	env, out, errOut := testEnv("")
	require.Equal(t, cmdutil.ExitNothingToSearch, runMain(ctx, env, []string{"run", "--table", "idx", "--namespace", "tinny", "--query", "q", "--json"}), errOut.String())
	assert.Equal(t, "globalsearch run: nothing to search: namespace \"tinny\" holds no summaries; namespaces that exist: tiny\n", errOut.String())
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Equal(t, globalsearch.StatusNoResults, res.Status)
	assert.True(t, res.Diagnostics.EmptyNamespace)
	assert.Equal(t, []string{"tiny"}, res.Diagnostics.AvailableNamespaces)
}

// TestEmptyFileNeverDeletesNamespace: an index file that holds no summary
// is invalid input to ingest, run and plan (exit 2), and ingesting it
// writes nothing: the namespace it names reads as before
// (docs/contract.md#ingest).
func TestEmptyFileNeverDeletesNamespace(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "idx")
	full := smallIndex()
	full.Namespace = "default"
	env, _, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", writeIndex(t, full), "--table", "idx", "--create-table"}), errOut.String())

	for name, content := range map[string]string{
		"null": "null\n", "empty object": "{}", "no summaries": `{"summaries": []}`,
		"only chunks": `{"chunks": [{"id": "c1", "text": "t"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "n.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			for _, args := range [][]string{
				{"ingest", "--index", path, "--table", "idx"},
				{"ingest", "--index", path, "--table", "idx", "--namespace", "default"},
				{"run", "--index", path, "--query", "q"},
				{"plan", "--index", path, "--query", "q"},
			} {
				env, out, errOut := testEnv("")
				assert.Equal(t, 2, runMain(ctx, env, args), "%v", args)
				assert.Contains(t, errOut.String(), "holds no summaries", "%v", args)
				assert.NotContains(t, out.String(), "wrote", "%v", args)
			}
			sums, err := s.Summaries(ctx, "default")
			require.NoError(t, err)
			assert.ElementsMatch(t, full.Summaries, sums, "namespace default untouched")
		})
	}
}

// TestTableNamespaceFromEnvironment: a table holds many namespaces, so
// with --table and no --namespace the deployment default
// GRAPHRAG_NAMESPACE chooses one, as docs/cli.md's flag table says.
func TestTableNamespaceFromEnvironment(t *testing.T) {
	ctx := context.Background()
	minidynEnv(t, "idx")
	path := writeIndex(t, smallIndex())
	env, _, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", path, "--table", "idx", "--create-table"}), errOut.String())

	env, out, errOut := testEnv("")
	env.lookupEnv = func(k string) (string, bool) {
		if k == "GRAPHRAG_NAMESPACE" {
			return "tiny", true
		}
		return "", false
	}
	require.Equal(t, 0, runMain(ctx, env, []string{"plan", "--table", "idx", "--query", "q", "--json"}), errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	assert.False(t, plan.EmptyNamespace, "namespace default is empty; tiny is not")
	assert.Equal(t, 2, plan.SummaryCount, "the two leaves of namespace tiny")
}
