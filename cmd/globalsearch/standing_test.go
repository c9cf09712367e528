package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// withSolar is smallIndex with its solar leaf's summary set to solar.
func withSolar(solar string) indexfile.File {
	f := smallIndex()
	f.Summaries[2].Summary = solar
	return f
}

// A standing question run twice by the CLI, the index re-written in
// between, says on its second run's status output what changed and pays
// only for the changed batch (docs/contract.md#standing-questions).
func TestRunStandingQuestionTwice(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	path := writeIndex(t, withSolar("Solar farms replaced diesel generators on the islands."))
	run := func(queryID string, args ...string) (int, string, string) {
		env, out, errOut := testEnv("")
		base := []string{"run", "--index", path, "--query", "How did solar power change?", "--no-shuffle", "--map-budget", "462", "--map-reserve", "0",
			"--cache", cache, "--standing", "energy-nightly"}
		code := runMain(context.Background(), env, append(base, args...))
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run("")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nstanding question energy-nightly: no previous run to compare, 2 communities recorded; 2 of 2 batches re-mapped, 0 answers reused\n")
	_, err := os.Stat(filepath.Join(cache, "standing", "tiny", "energy-nightly.json"))
	require.NoError(t, err, "the record lives in the cache directory")

	require.NoError(t, indexfile.Save(path, withSolar("Solar farms and batteries replaced diesel generators.")))
	code, out, errOut = run("", "--json")
	require.Equal(t, 0, code, errOut)
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	ch := res.Diagnostics.Changes
	require.NotNil(t, ch)
	assert.NotEmpty(t, ch.PreviousQueryID)
	assert.Equal(t, globalsearch.CommunityChanges{Count: 1, IDs: []string{"solar"}}, ch.Changed)
	assert.Equal(t, 1, ch.Unchanged)
	assert.Equal(t, 1, ch.BatchesRemapped)
	assert.Equal(t, 1, ch.AnswersReused)
	assert.Equal(t, globalsearch.StatusCompleted, res.Status)
	assert.Equal(t, 2, res.Diagnostics.ModelCalls, "the changed batch and the reduce")

	code, out, errOut = run("")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nchanges since "+res.QueryID+": 0 communities added, 0 removed, 0 changed, 2 unchanged; 0 of 2 batches re-mapped, 2 answers reused\n")
}

func TestPlanStandingQuestion(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "q", "--cache", cache, "--standing", "n1"})
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "\nstanding question n1: no previous run to compare, 2 communities recorded\n")
}

func TestStandingFlagRefusals(t *testing.T) {
	path := writeIndex(t, smallIndex())
	tests := []struct {
		name     string
		args     []string
		cacheDir func() (string, error)
		want     string
	}{
		{"a name no request can hold", []string{"--standing", "a/b", "--cache", t.TempDir()}, nil,
			"standingQuery must be 1-80 characters of A-Z a-z 0-9 - _"},
		{"an empty name", []string{"--standing", "", "--cache", t.TempDir()}, nil,
			"standingQuery must be 1-80 characters of A-Z a-z 0-9 - _"},
		{"no directory for the record", []string{"--standing", "n1", "--no-cache"},
			func() (string, error) { return "", errors.New("no home") },
			"no user cache directory (no home) for the --standing record: give --cache DIR"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			env.userCacheDir = tc.cacheDir
			code := runMain(context.Background(), env, append([]string{"run", "--index", path, "--query", "q"}, tc.args...))
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

// A record that cannot be read, or that is another question's, stops run
// and plan with exit 2 and a message naming the file or what differs,
// and leaves the record as it was; --standing-reset starts a new
// baseline (docs/contract.md#standing-questions). plan, which opens no
// model, checks the record as run writes it.
func TestStandingRecordRefusalsAndReset(t *testing.T) {
	path := writeIndex(t, smallIndex())
	tests := []struct {
		name   string
		damage func(t *testing.T, file string)
		args   []string
		want   string
	}{
		{"garbage", func(t *testing.T, file string) { require.NoError(t, os.WriteFile(file, []byte("garbage"), 0o600)) }, nil,
			"cannot be read"},
		{"a half-written file", func(t *testing.T, file string) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, data[:len(data)/2], 0o600))
		}, nil, "cannot be read"},
		{"another query", nil, []string{"--query", "What else?"},
			`standing question "n1" was recorded for query "q"; this run asks for query "What else?": use another name, or --standing-reset`},
		{"another level", nil, []string{"--level", "0"}, "was recorded for communityLevel leaf; this run asks for communityLevel 0"},
		{"another map reserve", nil, []string{"--map-reserve", "300"}, "was recorded for mapOutputReserve 512; this run asks for mapOutputReserve 300"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			file := filepath.Join(cache, "standing", "tiny", "n1.json")
			cli := func(cmd string, args ...string) (int, string, string) {
				env, out, errOut := testEnv("")
				base := []string{cmd, "--index", path, "--query", "q", "--cache", cache, "--standing", "n1"}
				code := runMain(context.Background(), env, append(base, args...))
				return code, out.String(), errOut.String()
			}
			code, _, errOut := cli("run")
			require.Equal(t, 0, code, errOut)
			code, out, errOut := cli("plan")
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "changes since ", "plan compares with the record run wrote")
			if tc.damage != nil {
				tc.damage(t, file)
			}
			before, err := os.ReadFile(file)
			require.NoError(t, err)
			for _, cmd := range []string{"plan", "run"} {
				code, _, errOut = cli(cmd, tc.args...)
				assert.Equal(t, 2, code, cmd)
				assert.Contains(t, errOut, tc.want, cmd)
				if tc.damage != nil {
					assert.Contains(t, errOut, file, "%s names the file", cmd)
				}
			}
			after, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the record is left as it was")

			code, out, errOut = cli("run", append(tc.args, "--standing-reset")...)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "\nstanding question n1: reset, no previous run compared, ")
			code, out, errOut = cli("run", tc.args...)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "\nchanges since ", "the reset's record is the new baseline")
		})
	}
}

func TestStandingResetNeedsStanding(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, _, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", path, "--query", "q", "--standing-reset"})
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "standingReset resets the record of a standing question: name it in standingQuery")
}
