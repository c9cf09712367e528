package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/graphragtest"
)

var writeGraphragFolder = graphragtest.WriteFolder

// cliOutput runs a search command and returns its standard output, with
// what differs between two runs of the same search (the query id and the
// clock) cleared from a run's result.
func cliOutput(t *testing.T, args ...string) string {
	t.Helper()
	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
	if args[0] != "run" {
		return out.String()
	}
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	res.QueryID, res.Diagnostics.StartedAt, res.Diagnostics.FinishedAt = "", time.Time{}, time.Time{}
	res.Diagnostics.Timeline = globalsearch.Timeline{}
	data, err := json.Marshal(res)
	require.NoError(t, err)
	return string(data)
}

// TestGraphragEqualsImportThenSearch: --graphrag DIR reads the folder by
// import's rules and options, so plan and run give what import then
// --index give, byte for byte (the query id and clock aside), on a small
// folder and on the Christmas Carol output.
func TestGraphragEqualsImportThenSearch(t *testing.T) {
	small := writeGraphragFolder(t, filepath.Join(t.TempDir(), "output"))
	options := [][]string{nil, {"--excerpts", "text-unit"}, {"--excerpts", "none"}}
	folders := []struct {
		name    string
		dir     func(t *testing.T) string
		options [][]string
	}{
		{"small folder", func(*testing.T) string { return small }, options},
		{"christmas carol", func(t *testing.T) string { return corpus.Dir(t, corpus.ChristmasCarol) },
			append(options, []string{"--content", "full_content"})},
	}
	for _, folder := range folders {
		for _, opts := range folder.options {
			t.Run(folder.name+" "+strings.Join(opts, " "), func(t *testing.T) {
				dir := folder.dir(t)
				index := filepath.Join(t.TempDir(), "index.json")
				env, _, errOut := testEnv("")
				require.Equal(t, 0, runMain(context.Background(), env, append([]string{"import", "graphrag", "--dir", dir, "--out", index}, opts...)), errOut.String())
				for _, cmd := range []string{"plan", "run"} {
					search := []string{cmd, "--query", "What are the main themes?", "--seed", "7", "--json", "--no-cache"}
					imported := cliOutput(t, append(search, "--index", index)...)
					inMemory := cliOutput(t, append(append(search, "--graphrag", dir), opts...)...)
					assert.Equal(t, imported, inMemory, cmd)
					assert.Contains(t, inMemory, `"summaryCount"`)
				}
			})
		}
	}
}

// TestGraphragFlag: a project root reads its output/, --namespace names
// the namespace the folder is read into, and every mistake is a clear
// usage or input error (exit 2); a bad request is refused before the
// folder is read.
func TestGraphragFlag(t *testing.T) {
	root := t.TempDir()
	out := writeGraphragFolder(t, filepath.Join(root, "output"))
	index := writeIndex(t, smallIndex())
	q := []string{"--query", "How did solar power change?", "--no-cache"}

	t.Run("a project root reads its output folder", func(t *testing.T) {
		plan := []string{"plan", "--query", "q", "--seed", "1", "--json"}
		assert.Equal(t, cliOutput(t, append(plan, "--graphrag", out)...), cliOutput(t, append(plan, "--graphrag", root)...))
	})
	t.Run("namespace", func(t *testing.T) {
		env, stdout, errOut := testEnv("")
		require.Equal(t, 0, runMain(context.Background(), env, append([]string{"run", "--graphrag", root, "--namespace", "harbour", "--json"}, q...)), errOut.String())
		var res globalsearch.Result
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
		assert.Equal(t, "harbour", res.Namespace)
		assert.Equal(t, globalsearch.StatusCompleted, res.Status)
		assert.Contains(t, strings.ToLower(res.Answer), "solar")
		assert.Equal(t, "--graphrag "+out+": 3 summaries (2 leaves), 2 of 2 claims, 2 chunks\n", errOut.String(), "what was read, on stderr")
	})

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"with --index", []string{"--graphrag", root, "--index", index}, "--index, --graphrag and --table exclude each other: give one"},
		{"with --table", []string{"--graphrag", root, "--table", "t"}, "--index, --graphrag and --table exclude each other: give one"},
		{"no index at all", nil, "--index, --graphrag or --table is required"},
		{"--excerpts without --graphrag", []string{"--index", index, "--excerpts", "none"}, "--content and --excerpts go with --graphrag DIR"},
		{"bad --excerpts", []string{"--graphrag", root, "--excerpts", "all"}, `--excerpts must be "source-text", "text-unit" or "none"`},
		{"bad --content", []string{"--graphrag", root, "--content", "title"}, `--content must be "summary" or "full_content"`},
		{"bad namespace", []string{"--graphrag", root, "--namespace", "Bad NS"}, globalsearch.NamespaceRule},
		{"missing folder", []string{"--graphrag", filepath.Join(root, "nope")}, "GraphRAG output folder " + filepath.Join(root, "nope") + ": no such folder"},
		{"the request before the folder", []string{"--graphrag", filepath.Join(root, "nope"), "--query", " "}, "query must not be empty"},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"run", "plan"} {
			t.Run(cmd+" "+tc.name, func(t *testing.T) {
				env, stdout, errOut := testEnv("")
				assert.Equal(t, 2, runMain(context.Background(), env, append(append([]string{cmd}, q...), tc.args...)))
				assert.Contains(t, errOut.String(), tc.want)
				assert.Empty(t, stdout.String())
			})
		}
	}
}

// TestIndexGivenAGraphragPath: --index pointed at a GraphRAG output folder
// says what the path is and how to search it (--graphrag) or import it, in
// every command that reads an index file (shared/indexsource tests the
// project root and the parquet files).
func TestIndexGivenAGraphragPath(t *testing.T) {
	root := t.TempDir()
	out := writeGraphragFolder(t, filepath.Join(root, "output"))
	importOut := "import it with `globalsearch import graphrag --dir " + out + " --out index.json`"
	paths := []struct {
		name, path, want string
	}{
		{"output folder", out, out + " is a GraphRAG output folder: search it with --graphrag " + out + ", or " + importOut},
	}
	event := filepath.Join("..", "..", "events", "prepare.json")
	commands := []struct {
		name string
		args func(path string) []string
		want func(want string) string
	}{
		{"run", func(p string) []string { return []string{"run", "--index", p, "--query", "q"} }, func(w string) string { return w }},
		{"plan", func(p string) []string { return []string{"plan", "--index", p, "--query", "q"} }, func(w string) string { return w }},
		{"ingest", func(p string) []string { return []string{"ingest", "--index", p, "--table", "t"} }, func(w string) string {
			w, _, _ = strings.Cut(w, ": search it with")
			return w
		}},
		{"invoke", func(p string) []string { return []string{"invoke", "prepare", "--event", event, "--index", p} }, func(w string) string {
			w, _, _ = strings.Cut(w, ": search it with")
			return w
		}},
	}
	for _, cmd := range commands {
		for _, p := range paths {
			t.Run(cmd.name+" "+p.name, func(t *testing.T) {
				env, _, errOut := testEnv("")
				assert.Equal(t, 2, runMain(context.Background(), env, cmd.args(p.path)))
				assert.Contains(t, errOut.String(), "--index wants an index file (JSON), but ")
				assert.Contains(t, errOut.String(), cmd.want(p.want))
			})
		}
	}
	// mcp opens its index on the first tool call, so that a client sees the
	// hint as that call's error instead of a server that died at start.
	for _, p := range paths {
		t.Run("mcp "+p.name, func(t *testing.T) {
			cs := connectMCP(t, "--index", p.path, "--no-cache")
			res := callTool(t, cs, "global_search", map[string]any{"query": "q"}, nil)
			assert.True(t, res.IsError)
			assert.Contains(t, toolText(res), "--index wants an index file (JSON), but ")
			assert.Contains(t, toolText(res), p.want)
		})
	}
	t.Run("ingest says how to import into the table", func(t *testing.T) {
		env, _, errOut := testEnv("")
		assert.Equal(t, 2, runMain(context.Background(), env, []string{"ingest", "--index", out, "--table", "idx"}))
		assert.Contains(t, errOut.String(), "import it with `globalsearch import graphrag --dir "+out+" --table idx --namespace NS`")
		assert.NotContains(t, errOut.String(), "--graphrag")
	})
	t.Run("import of a project root names its output folder", func(t *testing.T) {
		env, _, errOut := testEnv("")
		assert.Equal(t, 2, runMain(context.Background(), env, []string{"import", "graphrag", "--dir", root, "--out", filepath.Join(t.TempDir(), "i.json")}))
		assert.Contains(t, errOut.String(), "a GraphRAG project root, whose output is in "+out+": give --dir "+out)
	})
}

// TestMCPServesAGraphragFolder: mcp takes --graphrag like run and plan,
// read into namespace "default".
func TestMCPServesAGraphragFolder(t *testing.T) {
	dir := writeGraphragFolder(t, filepath.Join(t.TempDir(), "output"))
	cs := connectMCP(t, "--graphrag", dir, "--excerpts", "text-unit", "--no-cache")
	res := callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?"}, nil)
	require.False(t, res.IsError, toolText(res))
	assert.Contains(t, strings.ToLower(toolText(res)), "solar")
	assert.Contains(t, toolText(res), "completed")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--index", "x.json", "--excerpts", "none"}, "globalsearch mcp: --content and --excerpts go with --graphrag DIR\n"},
		{[]string{"--graphrag", dir, "--table", "t"}, "globalsearch mcp: --index, --graphrag and --table exclude each other: give one\n"},
	} {
		env, _, errOut := testEnv("")
		assert.Equal(t, 2, runMain(context.Background(), env, append([]string{"mcp"}, tc.args...)), "%v", tc.args)
		assert.Equal(t, tc.want, errOut.String())
	}

	res = callTool(t, cs, "global_search", map[string]any{"query": "q", "namespace": "other"}, nil)
	assert.True(t, res.IsError)
	assert.Contains(t, toolText(res), `the GraphRAG output folder `+dir+` (read in memory) holds namespace "default", not "other"`)
}
