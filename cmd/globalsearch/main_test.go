package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
)

// The shared fixtures of indexfiletest, by the names these tests use.
var (
	smallIndex  = indexfiletest.Small
	writeIndex  = indexfiletest.Write
	titledIndex = indexfiletest.Titled
)

// testEnv runs the CLI in process with captured output and no environment.
func testEnv(stdin string) (*cliEnv, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cliEnv{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		lookupEnv: func(string) (string, bool) { return "", false },
	}, &out, &errOut
}

func TestExitStatuses(t *testing.T) {
	path := writeIndex(t, smallIndex())
	smallestReduce := globalsearch.DefaultPrompts().Reduce.SmallestTokenBudget("q", globalsearch.SpecDefaults.ReduceOutputReserve)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"blank query is invalid input", []string{"plan", "--index", path, "--query", "  "}, 2, "query must not be empty"},
		{"bad level", []string{"plan", "--index", path, "--query", "q", "--level", "top"}, 2, `communityLevel must be "leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`},
		{"bad budget", []string{"plan", "--index", path, "--query", "q", "--map-budget", "0"}, 2, "mapTokenBudget must be a positive integer"},
		{"seed and no-shuffle", []string{"plan", "--index", path, "--query", "q", "--seed", "1", "--no-shuffle"}, 2, "exclude each other"},
		{"budget below prompt", []string{"plan", "--index", path, "--query", "q", "--map-budget", "600"}, 2, "map token budget cannot fit the map prompt"},
		{"missing index file", []string{"plan", "--index", filepath.Join(t.TempDir(), "nope.json"), "--query", "q"}, 2, "read index file"},
		{"reduce budget below its prompt", []string{"run", "--index", path, "--query", "q", "--reduce-budget", strconv.Itoa(smallestReduce - 1)}, 2,
			"reduce token budget cannot fit the reduce prompt: reduceTokenBudget must be at least " + strconv.Itoa(smallestReduce) + " "},
		{"plan: a namespace the file does not hold", []string{"plan", "--index", path, "--query", "q", "--namespace", "other"}, 2, `holds namespace "tiny", not "other"`},
		{"run: a namespace the file does not hold", []string{"run", "--index", path, "--query", "q", "--namespace", "other"}, 2, `holds namespace "tiny", not "other"`},
		{"unknown model", []string{"run", "--index", path, "--query", "q", "--model", "gpt-99"}, 2, "gpt-99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, tc.wantCode, runMain(context.Background(), env, tc.args))
			assert.Contains(t, errOut.String(), tc.wantErr)
		})
	}
}

// TestInvalidIndexFileExitsTwoInEveryCommand: every command that reads an
// index file refuses a malformed one as invalid input (exit 2), naming the
// place, before any model or AWS call.
func TestInvalidIndexFileExitsTwoInEveryCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		return path
	}
	files := []struct {
		name, path, wantErr string
	}{
		{"trailing brace", write("trailing.json", `{"summaries":[{"id":"c1","level":0,"summary":"s"}]}}`), "unexpected '}' after the JSON value at byte offset"},
		{"duplicate key", write("dup.json", `{"summaries":[{"id":"c1","level":0,"summary":"s","id":"c2"}]}`), `duplicate key "id" in summaries[0]`},
		{"missing", filepath.Join(dir, "nope.json"), "read index file"},
	}
	event := filepath.Join("..", "..", "events", "prepare.json")
	commands := map[string]func(index string) []string{
		"run":    func(index string) []string { return []string{"run", "--index", index, "--query", "q"} },
		"plan":   func(index string) []string { return []string{"plan", "--index", index, "--query", "q"} },
		"ingest": func(index string) []string { return []string{"ingest", "--index", index, "--table", "t"} },
		"invoke": func(index string) []string { return []string{"invoke", "prepare", "--event", event, "--index", index} },
	}
	for cmd, args := range commands {
		for _, f := range files {
			t.Run(cmd+"/"+f.name, func(t *testing.T) {
				env, _, errOut := testEnv("")
				assert.Equal(t, 2, runMain(context.Background(), env, args(f.path)))
				assert.Contains(t, errOut.String(), f.wantErr)
			})
		}
	}
}
