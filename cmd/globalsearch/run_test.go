package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
)

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

	// Every stage ran, so --json shows each in the timeline
	// (docs/contract.md#timeline), the run's start as the result's.
	var raw struct {
		Diagnostics struct {
			Timeline map[string]any `json:"timeline"`
		} `json:"diagnostics"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
	timeline := raw.Diagnostics.Timeline
	assert.Equal(t, res.Diagnostics.StartedAt.Format(time.RFC3339Nano), timeline["startedAt"])
	for _, stage := range []string{"prepareSeconds", "firstMapCallSeconds", "mapSeconds", "reduceSeconds"} {
		seconds, ok := timeline[stage].(float64)
		if assert.True(t, ok, "%s in %v", stage, timeline) {
			assert.GreaterOrEqual(t, seconds, 0.0, stage)
		}
	}
	assert.Len(t, timeline, 5, "the start and four stages")
}

func TestRunPrintsAnswerAndStatusLine(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", path, "--query", "How did solar power change?"})
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "status completed")
	assert.Contains(t, strings.ToLower(out.String()), "solar")
	// The coverage line follows the status line (docs/contract.md#coverage).
	assert.Contains(t, out.String(), "]\ncoverage: 2 of 3 communities, 1 claim, 1 excerpt (the index names no documents); 1 map answer: ")
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

// docs/contract.md#selection: the levels listed are the lowest
// MaxListedLevels, and a full list says so.
func TestLevelList(t *testing.T) {
	full := make([]int, globalsearch.MaxListedLevels)
	for i := range full {
		full[i] = i
	}
	assert.Equal(t, "[0 1]", levelList([]int{0, 1}))
	assert.True(t, strings.HasSuffix(levelList(full), fmt.Sprintf("%d] (the lowest %d)", globalsearch.MaxListedLevels-1, globalsearch.MaxListedLevels)))
}

// TestNoShuffleAndSingularCounts: --no-shuffle draws no seed, so the result
// records 0 and the text says "no shuffle"; a count of one is singular.
func TestNoShuffleAndSingularCounts(t *testing.T) {
	path := writeIndex(t, smallIndex())
	tests := []struct {
		name        string
		args        []string
		want, avoid []string
	}{
		{"run text", []string{"run", "--no-shuffle"}, []string{"2 summaries, 1 batch, 2 model calls", "no shuffle"}, []string{"seed", "1 batches"}},
		{"run text with a seed", []string{"run", "--seed", "5"}, []string{"1 batch,", "seed 5"}, []string{"no shuffle"}},
		{"plan text", []string{"plan", "--no-shuffle"}, []string{"2 summaries -> 1 map batch (", ", no shuffle)"}, []string{"seed", "1 map batches"}},
		{"run json", []string{"run", "--no-shuffle", "--json"}, []string{`"shuffleSeed": 0`}, nil},
		{"plan json", []string{"plan", "--no-shuffle", "--json"}, []string{`"shuffleSeed": 0`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			args := append(tc.args, "--index", path, "--query", "How did solar power change?", "--no-cache")
			require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
			for _, want := range tc.want {
				assert.Contains(t, out.String(), want)
			}
			for _, avoid := range tc.avoid {
				assert.NotContains(t, out.String(), avoid)
			}
		})
	}
}

// The offline model's answers are cached under its versioned name
// (offline.CacheID), so a cache written by older rules of the model serves
// none of them (docs/contract.md#map-cache).
func TestOfflineCacheKeyNamesItsVersion(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample-index.json")
	const query = "What changed in the fisheries?"
	dir := t.TempDir()
	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"plan", "--index", sample, "--query", query, "--seed", "3", "--json"}), errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	require.NotEmpty(t, plan.Batches)
	out.Reset()
	require.Equal(t, 0, runMain(context.Background(), env, []string{"run", "--index", sample, "--query", query, "--seed", "3", "--cache", dir}), errOut.String())
	prompts := globalsearch.DefaultPrompts()
	for i, b := range plan.Batches {
		prompt := prompts.Map.Render(query, b.Content)
		key := globalsearch.MapCacheKey(offline.CacheID, prompt, globalsearch.SpecDefaults.MapOutputReserve)
		assert.FileExists(t, filepath.Join(dir, key[:2], key+".json"), "batch %d", i)
		old := globalsearch.MapCacheKey("offline", prompt, globalsearch.SpecDefaults.MapOutputReserve)
		assert.NoFileExists(t, filepath.Join(dir, old[:2], old+".json"), "batch %d", i)
	}
}
