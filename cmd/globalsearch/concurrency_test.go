package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestConcurrencyFlag: --concurrency N is the request's mapConcurrency,
// refused below 1 by the request's own rule; "auto" leaves the request's
// to its default and gives the engine an adaptive limit
// (docs/contract.md#auto-concurrency); anything else is a usage error.
func TestConcurrencyFlag(t *testing.T) {
	tests := []struct {
		name      string
		value     string
		vars      map[string]string
		wantCalls int
		wantAuto  bool
		wantUsage string
		wantKind  globalsearch.Kind
		wantErr   string
	}{
		{name: "a number", value: "3", wantCalls: 3},
		{name: "a number over the variable", value: "3", vars: map[string]string{"GRAPHRAG_MAP_CONCURRENCY": "9"}, wantCalls: 3},
		{name: "auto", value: "auto", wantCalls: globalsearch.SpecDefaults.MapConcurrency, wantAuto: true},
		{name: "auto keeps the variable's default", value: "auto", vars: map[string]string{"GRAPHRAG_MAP_CONCURRENCY": "9"}, wantCalls: 9, wantAuto: true},
		{name: "zero: the request's rule", value: "0", wantKind: globalsearch.KindInvalidInput, wantErr: "mapConcurrency must be a positive integer"},
		{name: "a word", value: "lots", wantUsage: `invalid value "lots" for flag -concurrency: want a number of map calls or "auto"`},
		{name: "Auto is not auto", value: "Auto", wantUsage: `invalid value "Auto" for flag -concurrency`},
	}
	path := writeIndex(t, smallIndex())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := fakeEnv(tc.vars)
			f, err := parseSearchFlags("run", env, []string{"--index", path, "--query", "q", "--concurrency", tc.value})
			if tc.wantUsage != "" {
				var usage *cmdutil.UsageError
				require.ErrorAs(t, err, &usage)
				assert.Contains(t, err.Error(), tc.wantUsage)
				return
			}
			require.NoError(t, err)
			e, p, err := f.engine(context.Background(), env, false)
			if tc.wantErr != "" {
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantCalls, p.MapConcurrency)
			assert.Equal(t, tc.wantAuto, e.AutoConcurrency != nil)
		})
	}
}

// TestRunConcurrencyAuto: run --concurrency auto answers as a fixed
// limit does and records what the limit did; a fixed limit records
// nothing (docs/contract.md#auto-concurrency).
func TestRunConcurrencyAuto(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample-index.json")
	tests := []struct {
		value    string
		wantAuto bool
	}{{"auto", true}, {"2", false}}
	answers := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			env, out, errOut := testEnv("")
			code := runMain(context.Background(), env, []string{"run", "--index", sample, "--query", "What changed in the fisheries?",
				"--seed", "1", "--map-budget", "2000", "--no-cache", "--json", "--concurrency", tc.value})
			require.Equal(t, 0, code, errOut.String())
			var res globalsearch.Result
			require.NoError(t, json.Unmarshal(out.Bytes(), &res))
			assert.Equal(t, globalsearch.StatusCompleted, res.Status)
			answers[tc.value] = res.Answer
			report := res.Diagnostics.Map.AutoConcurrency
			if !tc.wantAuto {
				assert.Nil(t, report)
				assert.NotContains(t, out.String(), `"autoConcurrency"`)
				return
			}
			require.NotNil(t, report)
			assert.Equal(t, globalsearch.AutoConcurrencyReport{
				Ceiling: res.Diagnostics.BatchCount, Peak: res.Diagnostics.BatchCount, Final: res.Diagnostics.BatchCount,
			}, *report, "the offline model refuses nothing: the limit stays at the batch count")
		})
	}
	assert.Equal(t, answers["2"], answers["auto"], "the limit changes when calls are made, not what they answer")
}

// TestMCPConcurrencyAuto: mcp --concurrency auto searches under the
// adaptive limit, as run does.
func TestMCPConcurrencyAuto(t *testing.T) {
	path := writeIndex(t, titledIndex())
	env, _, _ := testEnv("")
	srv := newMCPServer(env, mcpFlags(t, env, "--index", path, "--no-cache", "--concurrency", "auto"))
	var search *globalsearch.Engine
	newEngine := srv.NewEngine
	srv.NewEngine = func(ctx context.Context, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
		e, err := newEngine(ctx, idx, withModel)
		if withModel {
			search = e
		}
		return e, err
	}
	cs := connectServer(t, srv)
	var out mcpReply
	res := callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?", "level": 1}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, globalsearch.StatusCompleted, out.Status)
	require.NotNil(t, search, "the first search opened the engine")
	assert.NotNil(t, search.AutoConcurrency)
}
