package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A generated index whose useful answers need several reduce rounds at a
// small reduce budget: --reduce-mode tree keeps every one, the status line
// names the rounds, and single says what tree would keep
// (docs/contract.md#reduce-rounds).
func TestReduceModeTreeOnAGeneratedIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("maps a 1,000-summary index; skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	index := filepath.Join(t.TempDir(), "index-1000.json")
	cmd := exec.Command("go", "run", "./testdata/gen", "--summaries", "1000", "--out", index)
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "generate the index: %s", msg)
	run := func(mode string, jsonOut bool) string {
		args := []string{"run", "--index", index, "--model", "offline", "--no-cache", "--seed", "1", "--reduce-budget", "2600",
			"--query", "What changed over the decade?", "--reduce-mode", mode}
		if jsonOut {
			args = append(args, "--json")
		}
		env, out, errOut := testEnv("")
		require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
		return out.String()
	}
	var tree globalsearch.Result
	require.NoError(t, json.Unmarshal([]byte(run("tree", true)), &tree))
	d := tree.Diagnostics
	assert.Equal(t, globalsearch.StatusCompleted, tree.Status)
	assert.GreaterOrEqual(t, d.Reduce.Rounds, 3, "%+v", d.Reduce.PerRound)
	assert.Zero(t, d.Coverage.MapAnswers.SkippedForBudget)
	assert.Equal(t, d.Coverage.MapAnswers.Useful, d.Coverage.MapAnswers.ReachedReduce)
	last := d.Reduce.PerRound[len(d.Reduce.PerRound)-1]
	assert.Equal(t, 1, last.Groups, "the final call is the last round")

	text := run("tree", false)
	assert.Contains(t, text, ", "+strings.TrimSpace(count(d.Reduce.Rounds, "reduce round", "reduce rounds"))+",")
	single := run("single", false)
	assert.Contains(t, single, "--reduce-mode tree would keep the")
	assert.NotContains(t, single, "reduce rounds")
}

// serve and mcp take --reduce-mode as the default of every request,
// checked by the request field's rule.
func TestReduceModeDefaultFlag(t *testing.T) {
	tests := []struct {
		name, value string
		given       bool
		want        string
		wantErr     bool
	}{
		{"not given", "tree", false, globalsearch.ReduceModeSingle, false},
		{"tree", "tree", true, globalsearch.ReduceModeTree, false},
		{"single", "single", true, globalsearch.ReduceModeSingle, false},
		{"unknown", "forest", true, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &searchFlags{reduceMode: tc.value, set: map[string]bool{"reduce-mode": tc.given}}
			d := globalsearch.SpecDefaults
			err := f.reduceModeDefault(&d)
			if tc.wantErr {
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%v", err)
				assert.Contains(t, err.Error(), "reduceMode must be")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.ReduceMode)
		})
	}
}
