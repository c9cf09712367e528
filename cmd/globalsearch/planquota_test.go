package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
)

// TestPlanSizesFromTheQuota: plan prints the map concurrency and the time
// of a run at the quota or call time given, by flag or variable
// (docs/contract.md#quota), and nothing of either without one, so that
// such a plan prints as it always did.
//
// The small index plans one batch. At 10 s a call, 120 requests a minute
// sustain 120 x 10 / 60 = 20 calls in flight: one wave of 10 s, over the
// request's 1 / 120 x 60 = 0.5 s, plus the reduce's 10 s is 20 s.
func TestPlanSizesFromTheQuota(t *testing.T) {
	path := writeIndex(t, smallIndex())
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		want     [2]int // mapConcurrency, etaSeconds; zero: absent
		wantLine string
	}{
		{name: "no quota: as it always was"},
		{name: "requests a minute", args: []string{"--requests-per-minute", "120"}, want: [2]int{20, 20},
			wantLine: "at 120 requests a minute and 10 s a call: map concurrency 20, about 20s with the reduce\n"},
		{name: "the request caps it", args: []string{"--requests-per-minute", "120", "--concurrency", "3"}, want: [2]int{3, 20},
			wantLine: "at 120 requests a minute and 10 s a call: map concurrency 3, about 20s with the reduce\n"},
		// floor(60 x 2 / 60) = 2; one wave of 2 s, over the request's 1 s,
		// plus the reduce's 2 s.
		{name: "from the variables", env: map[string]string{"GRAPHRAG_MODEL_REQUESTS_PER_MINUTE": "60", "GRAPHRAG_MAP_CALL_SECONDS": "2"},
			want: [2]int{2, 4}, wantLine: "at 60 requests a minute and 2 s a call: map concurrency 2, about 4s with the reduce\n"},
		{name: "a flag wins over its variable", args: []string{"--requests-per-minute", "120"}, env: map[string]string{"GRAPHRAG_MODEL_REQUESTS_PER_MINUTE": "60"},
			want: [2]int{20, 20}, wantLine: "at 120 requests a minute and 10 s a call: map concurrency 20, about 20s with the reduce\n"},
		// A call time alone: the request's default 4, one wave of 5 s and
		// the reduce's 5 s.
		{name: "a call time alone", args: []string{"--call-seconds", "5"}, want: [2]int{4, 10},
			wantLine: "at 5 s a call: map concurrency 4, about 10s with the reduce\n"},
		{name: "0 is not known", args: []string{"--tokens-per-minute", "0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw map[string]json.RawMessage
			for _, asJSON := range []bool{true, false} {
				env, out, errOut := testEnv("")
				env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
				args := append([]string{"plan", "--index", path, "--query", "What changed?", "--seed", "3"}, tc.args...)
				if asJSON {
					args = append(args, "--json")
				}
				require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
				if !asJSON {
					if tc.wantLine == "" {
						assert.NotContains(t, out.String(), "map concurrency")
					} else {
						assert.Contains(t, out.String(), tc.wantLine)
					}
					continue
				}
				require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
				require.Equal(t, "1", string(raw["batchCount"]))
			}
			if tc.want == [2]int{} {
				assert.NotContains(t, raw, "mapConcurrency")
				assert.NotContains(t, raw, "etaSeconds")
				return
			}
			assert.Equal(t, strconv.Itoa(tc.want[0]), string(raw["mapConcurrency"]))
			assert.Equal(t, strconv.Itoa(tc.want[1]), string(raw["etaSeconds"]))
		})
	}
}

// TestPlanTokensQuotaWeighsTheOutput: the tokens quota counts each call's
// input and its output reserve at the model's weight. The quota is chosen
// to sustain exactly 2 calls of the plan's one batch: 60 x reserved x 2 /
// 10 tokens a minute, so floor(quota x 10 / (60 x reserved)) = 2; one wave
// of 10 s, over the tokens' reserved / quota x 60 = 5 s, plus the reduce's
// 10 s. A Claude 4 model reserves 5 x 512 for the output, any other 512.
func TestPlanTokensQuotaWeighsTheOutput(t *testing.T) {
	path := writeIndex(t, smallIndex())
	const claude = "bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0"
	for _, tc := range []struct {
		name   string
		models []string
		weight int
	}{
		{"offline", []string{"--model", "offline"}, 1},
		{"claude", []string{"--model", claude}, 5},
		// The map calls are what the quota admits: the map model weighs them.
		{"claude maps, offline reduces", []string{"--model", "offline", "--map-model", claude}, 5},
		{"offline maps, claude reduces", []string{"--model", claude, "--map-model", "offline"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := func(extra ...string) map[string]json.RawMessage {
				env, out, errOut := testEnv("")
				args := append(append([]string{"plan", "--index", path, "--query", "What changed?", "--seed", "3", "--json"}, tc.models...), extra...)
				require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
				var raw map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
				return raw
			}
			tokens, err := strconv.Atoi(string(plan()["estimatedMapInputTokens"]))
			require.NoError(t, err)
			reserved := tokens + tc.weight*512
			raw := plan("--tokens-per-minute", strconv.Itoa(60*reserved*2/10))
			require.Zero(t, 60*reserved*2%10, "the quota is a whole number")
			assert.Equal(t, "2", string(raw["mapConcurrency"]))
			assert.Equal(t, "20", string(raw["etaSeconds"]))
		})
	}
}

// TestPlanQuotaRefusals: a bad quota flag or variable is refused before
// the index is read (the index path names no file).
func TestPlanQuotaRefusals(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"negative tokens", []string{"--tokens-per-minute", "-1"}, nil, `must be a non-negative integer (0: not known), not "-1"`},
		{"fractional requests", []string{"--requests-per-minute", "1.5"}, nil, `must be a non-negative integer (0: not known), not "1.5"`},
		{"zero call time", []string{"--call-seconds", "0"}, nil, `must be a positive number of seconds up to 3600, not "0"`},
		{"bad variable", nil, map[string]string{"GRAPHRAG_MAP_CALL_SECONDS": "soon"},
			`GRAPHRAG_MAP_CALL_SECONDS must be a positive number of seconds up to 3600, not "soon"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"plan", "--index", missing, "--query", "q"}, tc.args...)
			assert.Equal(t, 2, runMain(context.Background(), env, args))
			assert.Contains(t, errOut.String(), tc.wantErr)
			assert.NotContains(t, errOut.String(), "none.json", "refused before the index is opened")
		})
	}
}

// TestREADMEQuotaFigures plans the Christmas Carol again as docs/cost.md's
// worked example of sizing from a quota does: its map batches, the
// concurrency and time at the quota, and the time at a fixed 4.
func TestREADMEQuotaFigures(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	args := []string{"--query", "What are the main themes of the story?", "--no-shuffle", "--model", "bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0"}
	sized := carolPlan(t, dir, append(args, "--tokens-per-minute", "2000000", "--requests-per-minute", "200")...)
	fixed := carolPlan(t, dir, append(args, "--call-seconds", "10")...)
	require.Equal(t, 4, fixed.MapConcurrency)
	got := readmeNumbers(t, docProse(t, "docs/cost.md"), "\\| \\*A Christmas Carol\\* \\(98 leaves, `--no-shuffle`\\) \\| (\\d+) \\| [^|]+ \\| \\d+ \\| \\d+ \\| (\\d+) \\| (\\d+) [^|]*\\| (\\d+) \\|")
	assert.Equal(t, []int{sized.BatchCount, sized.MapConcurrency, sized.ETASeconds, fixed.ETASeconds}, got)
}
