package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// testEnv runs the CLI in process with captured output and no environment.
func testEnv(stdin string) (*cliEnv, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cliEnv{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		lookupEnv: func(string) (string, bool) { return "", false },
	}, &out, &errOut
}

func writeIndex(t *testing.T, f indexfile.File) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.json")
	require.NoError(t, indexfile.Save(path, f))
	return path
}

func smallIndex() indexfile.File {
	return indexfile.File{Namespace: "tiny", Records: globalsearch.Records{
		Summaries: []globalsearch.Summary{
			{ID: "root", Level: 0, Summary: "The harbour economy changed over the decade."},
			{ID: "fish", Level: 1, ParentCommunityID: "root", Summary: "Fishing quotas were cut and the fleet shrank."},
			{ID: "solar", Level: 1, ParentCommunityID: "root", Summary: "Solar farms replaced diesel generators on the islands."},
		},
		Claims: []globalsearch.Claim{{ID: "k1", CommunityID: "solar", Subject: "Grid", Object: "Solar", Description: "solar share rose", SourceChunkIDs: []string{"c1"}}},
		Chunks: []globalsearch.Chunk{{ID: "c1", Text: "By 2030 solar met half of demand."}},
	}}
}

func TestTokensCommand(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"hello world", "3\n"}, {"中文测试", "3\n"}, {"", "0\n"},
	}
	for _, tc := range tests {
		env, out, _ := testEnv(tc.in)
		assert.Equal(t, 0, runMain(context.Background(), env, []string{"tokens"}))
		assert.Equal(t, tc.want, out.String())
	}
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
		{"bad level", []string{"plan", "--index", path, "--query", "q", "--level", "top"}, 2, `communityLevel must be "leaf" or a non-negative integer`},
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

// TestPanicExitsOneAsAnInternalError: a bug in a command is an internal
// error (exit 1, its stack on stderr), never exit 2, which says the input
// was wrong, whatever the value it panics with.
func TestPanicExitsOneAsAnInternalError(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"string", "index out of range", "globalsearch boom: internal error: index out of range\n"},
		{"runtime error", nil, "globalsearch boom: internal error: runtime error: invalid memory address or nil pointer dereference\n"},
		{"invalid-input error", globalsearch.Errorf(globalsearch.KindInvalidInput, "bad"), "globalsearch boom: internal error: bad\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmds := map[string]command{"boom": {run: func(context.Context, *cliEnv, []string) error {
				if tc.value == nil {
					var m map[string]*int
					return errors.New(strconv.Itoa(*m["x"]))
				}
				panic(tc.value)
			}}}
			env, _, errOut := testEnv("")
			assert.Equal(t, 1, dispatch(context.Background(), env, cmds, []string{"boom"}))
			first, stack, _ := strings.Cut(errOut.String(), "\n")
			assert.Equal(t, tc.want, first+"\n")
			assert.Contains(t, stack, "goroutine", "the stack follows, for a bug report")
		})
	}
}

func TestPlanJSON(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "What changed?", "--seed", "3", "--json"})
	require.Equal(t, 0, code, errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	assert.Equal(t, 2, plan.SummaryCount, "the two leaves of the file's own namespace")
	assert.Equal(t, 1, plan.BatchCount)
	assert.Equal(t, 7488, plan.MapPromptBudget)
	assert.Equal(t, 6976, plan.ReducePromptBudget)
	assert.Equal(t, int64(3), plan.ShuffleSeed)
	assert.Equal(t, 4, plan.MaxModelCalls)
	assert.Contains(t, plan.MapSkeleton, "What changed?")
	require.Len(t, plan.Batches, 1)
	assert.Equal(t, tokens.Estimate(plan.MapSkeleton+"\n"+plan.Batches[0].Content), plan.Batches[0].EstimatedTokens)
	assert.Equal(t, plan.Batches[0].EstimatedTokens, plan.EstimatedMapInputTokens)
	assert.Contains(t, plan.Batches[0].Content, "- (c1) By 2030 solar met half of demand.")
}

// TestPlanReportsAWSMode: plan says how a deployment's state machine would
// run the plan: inline within the inline Map's history budget, distributed
// past it (docs/contract.md#state-machine).
func TestPlanReportsAWSMode(t *testing.T) {
	long := indexfile.File{Namespace: "long", Records: globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "c1", Summary: strings.Repeat("Shared trend. ", 20000)},
	}}}
	cases := []struct {
		name     string
		index    indexfile.File
		args     []string
		wantMode string
		wantLine string
	}{
		{"one batch", smallIndex(), nil, workflow.ModeInline, "on AWS: inline Map"},
		{"past the inline budget", long, []string{"--map-budget", "400", "--map-reserve", "0", "--no-shuffle", "--max-model-calls", "2000"}, workflow.ModeDistributed, "on AWS: distributed Map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeIndex(t, tc.index)
			base := append([]string{"plan", "--index", path, "--query", "q"}, tc.args...)
			env, out, errOut := testEnv("")
			require.Equal(t, 0, runMain(context.Background(), env, append(base, "--json")), errOut.String())
			var plan planOutput
			require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
			assert.Equal(t, tc.wantMode, plan.MapMode, "%d batches", plan.BatchCount)
			assert.Equal(t, workflow.MapMode(plan.BatchCount, 0), plan.MapMode)

			env, out, errOut = testEnv("")
			require.Equal(t, 0, runMain(context.Background(), env, base), errOut.String())
			assert.Contains(t, out.String(), tc.wantLine)
		})
	}
}

func TestPlanLevelThatDoesNotExist(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, _ := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "q", "--level", "5"}))
	assert.Contains(t, out.String(), "levels that exist: [0 1]")
}

func TestRunOfflineOnTheSampleIndex(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample-index.json")
	if _, err := os.Stat(sample); err != nil {
		t.Fatalf("the sample index that make run uses is missing: %v", err)
	}
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", sample, "--query",
		"What are the main themes across Veloria's development over the decade?", "--seed", "1", "--json"})
	require.Equal(t, 0, code, errOut.String())
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Equal(t, globalsearch.StatusCompleted, res.Status)
	assert.NotEmpty(t, res.Answer)
	assert.Greater(t, res.Diagnostics.BatchCount, 1, "the long summary is split across batches")
	assert.Equal(t, res.Diagnostics.BatchCount+1, res.Diagnostics.ModelCalls)
	assert.Equal(t, int64(1), res.Diagnostics.ShuffleSeed)
}

func TestRunPrintsAnswerAndStatusLine(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", path, "--query", "How did solar power change?"})
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "status completed")
	assert.Contains(t, strings.ToLower(out.String()), "solar")
}

// docs/contract.md#plan-limits in process: a plan whose map texts exceed the ceiling is
// refused with the numbers; the flag sets the ceiling.
func TestPlanMapTextCeiling(t *testing.T) {
	f := indexfile.File{Namespace: "amp", Records: globalsearch.Records{
		Chunks: []globalsearch.Chunk{{ID: "big", Text: strings.Repeat("coal ", 20_000)}},
	}}
	for i := range 20 {
		id := fmt.Sprintf("c%02d", i)
		f.Summaries = append(f.Summaries, globalsearch.Summary{ID: id, Summary: "A leaf."})
		f.Claims = append(f.Claims, globalsearch.Claim{ID: "k" + id, CommunityID: id, Subject: "S", SourceChunkIDs: []string{"big"}})
	}
	path := writeIndex(t, f)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"default ceiling", nil, 0, ""},
		{"1 MiB ceiling", []string{"--max-map-text-mb", "1"}, 1, "but this deployment plans at most 1048576 (the map-text ceiling of 1048576 bytes)"},
		{"zero", []string{"--max-map-text-mb", "0"}, 2, "--max-map-text-mb must be a positive number of MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, append([]string{"plan", "--index", path, "--query", "q"}, tc.args...))
			assert.Equal(t, tc.wantCode, code, errOut.String())
			assert.Contains(t, errOut.String(), tc.wantErr)
		})
	}
}

func TestPrintMapErrors(t *testing.T) {
	var w strings.Builder
	// As the state machine reports them; a Search's own batch errors
	// (globalsearch.BatchError) group by their cause the same way.
	printMapErrors(&w, []globalsearch.BatchFailure{
		{BatchIndex: 1, Message: "throttled"},
		{BatchIndex: 2, Message: "throttled"},
		{BatchIndex: 4, Message: "throttled"},
		{BatchIndex: 6, Message: "model output is not valid JSON"},
	})
	assert.Equal(t, "map batches 1-2, 4 (3): throttled\nmap batch 6: model output is not valid JSON\n", w.String())
}

// TestRunProgressLine: on a terminal, run counts map batches up to the
// total, one step at a time, and ends the line.
func TestRunProgressLine(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample-index.json")
	env, _, errOut := testEnv("")
	env.stderrIsTTY = true
	code := runMain(context.Background(), env, []string{"run", "--index", sample, "--query", "What changed in the fisheries?",
		"--seed", "1", "--map-budget", "2000", "--concurrency", "4"})
	require.Equal(t, 0, code, errOut.String())
	steps := strings.Split(strings.TrimPrefix(errOut.String(), "\r"), "\r")
	require.Greater(t, len(steps), 4, "enough batches to run four at once")
	total := len(steps)
	for i, step := range steps {
		want := fmt.Sprintf("map batches %d/%d", i+1, total)
		if i == total-1 {
			want += "\n"
		}
		assert.Equal(t, want, step)
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

func TestResponseTypeFlag(t *testing.T) {
	tests := []struct {
		name     string
		value    string
		wantCode int
		wantErr  string
	}{
		{"given", "two sentences", 0, ""},
		{"empty is refused like an empty field", "", 2, "responseType must be 1-100 characters"},
		{"too long", strings.Repeat("x", 101), 2, "responseType must be 1-100 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeIndex(t, smallIndex())
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, []string{"run", "--index", path, "--query", "How did solar power change?",
				"--response-type", tc.value})
			assert.Equal(t, tc.wantCode, code, errOut.String())
			if tc.wantErr != "" {
				assert.Contains(t, errOut.String(), tc.wantErr)
			}
		})
	}
}

// TestRunMapCache: a second run over an unchanged index with the same seed
// makes no map call and gives the same answer; --no-cache writes nothing.
func TestRunMapCache(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample-index.json")
	run := func(t *testing.T, env *cliEnv, extra ...string) globalsearch.Result {
		t.Helper()
		out := env.stdout.(*bytes.Buffer)
		out.Reset()
		args := append([]string{"run", "--index", sample, "--query", "What changed in the fisheries?", "--seed", "3", "--json"}, extra...)
		require.Equal(t, 0, runMain(context.Background(), env, args))
		var res globalsearch.Result
		require.NoError(t, json.Unmarshal(out.Bytes(), &res))
		require.Equal(t, globalsearch.StatusCompleted, res.Status)
		return res
	}
	files := func(dir string) int {
		n := 0
		_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	tests := []struct {
		name     string
		flags    func(dir string) []string
		userDir  bool
		wantHits bool
	}{
		{"--cache DIR", func(dir string) []string { return []string{"--cache", dir} }, false, true},
		{"the user's cache directory by default", func(string) []string { return nil }, true, true},
		{"--no-cache", func(string) []string { return []string{"--no-cache"} }, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env, _, _ := testEnv("")
			if tc.userDir {
				env.userCacheDir = func() (string, error) { return dir, nil }
			}
			first := run(t, env, tc.flags(dir)...)
			second := run(t, env, tc.flags(dir)...)
			assert.Equal(t, first.Answer, second.Answer)
			assert.Equal(t, first.Diagnostics.BatchCount+1, first.Diagnostics.ModelCalls)
			if tc.wantHits {
				assert.Equal(t, first.Diagnostics.BatchCount, second.Diagnostics.Map.CacheHits)
				assert.Equal(t, 1, second.Diagnostics.ModelCalls, "only the reduce call")
				assert.Equal(t, first.Diagnostics.BatchCount, files(dir))
			} else {
				assert.Zero(t, second.Diagnostics.Map.CacheHits)
				assert.Zero(t, files(dir), "nothing written")
			}
		})
	}
	t.Run("--cache with --no-cache is a usage error", func(t *testing.T) {
		env, _, errOut := testEnv("")
		code := runMain(context.Background(), env, []string{"run", "--index", sample, "--query", "q", "--cache", t.TempDir(), "--no-cache"})
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut.String(), "--cache needs a directory and excludes --no-cache")
	})
}
