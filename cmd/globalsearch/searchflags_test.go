package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestHelpShowsTheDefaultsInEffect: -h of run and plan shows each
// request default as this environment resolves it (GRAPHRAG_*), and names
// the variable; a bad variable shows the contract's defaults in the help,
// while a search still refuses it.
func TestHelpShowsTheDefaultsInEffect(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"no variables: the contract's defaults", nil, []string{
			"map token budget (default 8000; $GRAPHRAG_MAP_TOKEN_BUDGET sets the default)",
			"reduce token budget (default 8000; $GRAPHRAG_REDUCE_TOKEN_BUDGET sets the default)",
			"map output reserve (default 512; $GRAPHRAG_MAP_OUTPUT_RESERVE sets the default)",
			"reduce output reserve (default 1024; $GRAPHRAG_REDUCE_OUTPUT_RESERVE sets the default)",
			"map calls in flight at most (default 4; $GRAPHRAG_MAP_CONCURRENCY sets the default)",
			"refuse plans that may make more model calls (default 500; $GRAPHRAG_MAX_MODEL_CALLS sets the default)",
			`$GRAPHRAG_COMMUNITY_LEVEL sets the default (default "leaf")`,
			"exceed this many MiB (default 256)",
			`(default "multiple paragraphs")`,
		}},
		{"variables set", map[string]string{
			"GRAPHRAG_MAP_TOKEN_BUDGET": "6000", "GRAPHRAG_REDUCE_OUTPUT_RESERVE": "700", "GRAPHRAG_MAP_CONCURRENCY": "9",
			"GRAPHRAG_MAX_MODEL_CALLS": "77", "GRAPHRAG_COMMUNITY_LEVEL": "2",
		}, []string{
			"map token budget (default 6000;",
			"reduce output reserve (default 700;",
			"map calls in flight at most (default 9;",
			"more model calls (default 77;",
			`$GRAPHRAG_COMMUNITY_LEVEL sets the default (default "2")`,
			"map output reserve (default 512;",
		}},
		{"a bad variable: the contract's defaults", map[string]string{"GRAPHRAG_MAP_TOKEN_BUDGET": "lots"}, []string{
			"map token budget (default 8000;",
		}},
	}
	for _, tc := range tests {
		for _, args := range [][]string{{"run", "--help"}, {"plan", "-h"}} {
			t.Run(tc.name+"/"+args[0], func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				env := fakeEnv(tc.vars)
				env.stdout, env.stderr = &stdout, &stderr
				assert.Equal(t, 0, runMain(context.Background(), env, args), "asking for help is no failure")
				assert.Empty(t, stderr.String())
				assert.Contains(t, stdout.String(), "usage: globalsearch "+args[0]+" [flags]")
				for _, want := range tc.want {
					assert.Contains(t, stdout.String(), want)
				}
			})
		}
	}

	t.Run("a bad variable is still refused by a search", func(t *testing.T) {
		var stderr bytes.Buffer
		env := fakeEnv(map[string]string{"GRAPHRAG_MAP_TOKEN_BUDGET": "lots"})
		env.stderr = &stderr
		path := writeIndex(t, smallIndex())
		assert.Equal(t, 2, runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "q"}))
		assert.Contains(t, stderr.String(), "GRAPHRAG_MAP_TOKEN_BUDGET: mapTokenBudget must be a positive integer")
	})
}

// TestIntFlagsNameRequestFields: each integer flag stands for a request
// field that has a deployment default, and a flag given reaches that
// field of the parsed request.
func TestIntFlagsNameRequestFields(t *testing.T) {
	path := writeIndex(t, smallIndex())
	for _, fl := range intFlags {
		t.Run(fl.name, func(t *testing.T) {
			require.NotEmpty(t, globalsearch.DefaultVariable(fl.field), "field %s", fl.field)
			want := fl.def(globalsearch.SpecDefaults) - 1
			env, _, _ := testEnv("")
			f, err := parseSearchFlags("plan", env, []string{"--index", path, "--query", "q", "--" + fl.name, strconv.Itoa(want)})
			require.NoError(t, err)
			p, err := f.params(env, "")
			require.NoError(t, err)
			data, err := json.Marshal(p)
			require.NoError(t, err)
			var fields map[string]any
			require.NoError(t, json.Unmarshal(data, &fields))
			assert.Equal(t, float64(want), fields[fl.field])
		})
	}
}

// TestMistypedFlagIsOneLine: a mistyped flag of a real command, or a
// mistyped command, exits 2 with one line naming the one meant, not the
// whole usage.
func TestMistypedFlagIsOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--qeury", "q"}, "globalsearch run: flag provided but not defined: -qeury (did you mean --query? see globalsearch run -h)\n"},
		{[]string{"plan", "--map-budgte", "9"}, "globalsearch plan: flag provided but not defined: -map-budgte (did you mean --map-budget? see globalsearch plan -h)\n"},
		{[]string{"invoke", "map", "--evnt", "e.json"}, "globalsearch invoke: flag provided but not defined: -evnt (did you mean --event? see globalsearch invoke -h)\n"},
		{[]string{"run", "--map-budget", "lots"}, "globalsearch run: invalid value \"lots\" for flag -map-budget: parse error (see globalsearch run -h)\n"},
		{[]string{"rnu", "--query"}, "globalsearch: unknown command \"rnu\" (did you mean run? see globalsearch -h)\n"},
		{[]string{"frobnicate", "x"}, "globalsearch: unknown command \"frobnicate\" (see globalsearch -h)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.args[0]+" "+tc.args[1], func(t *testing.T) {
			env, out, errOut := testEnv("")
			assert.Equal(t, 2, runMain(context.Background(), env, tc.args))
			assert.Equal(t, tc.want, errOut.String())
			assert.Empty(t, out.String())
		})
	}
}

// TestHelpExitsZero: help asked for, of the tool or of a command, prints
// on standard output and exits 0; no command at all is a usage error.
func TestHelpExitsZero(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"--help"}, 0, "usage: globalsearch <command> [flags]"},
		{[]string{"help"}, 0, "usage: globalsearch <command> [flags]"},
		{[]string{"import", "-h"}, 0, "usage: globalsearch import graphrag --dir DIR"},
		{[]string{"import", "graphrag", "-h"}, 0, "usage: globalsearch import graphrag [flags]"},
		{[]string{"invoke", "--help"}, 0, "usage: globalsearch invoke <prepare|map|reduce|api>"},
		{[]string{"invoke", "map", "-h"}, 0, "usage: globalsearch invoke <prepare|map|reduce|api>"},
		{[]string{"tokens", "-h"}, 0, "usage: globalsearch tokens [--tokenizer T [--model M]] < FILE"},
		{[]string{"mcp", "-h"}, 0, "usage: globalsearch mcp [flags]"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env, out, errOut := testEnv("")
			assert.Equal(t, tc.wantCode, runMain(context.Background(), env, tc.args), errOut.String())
			assert.Contains(t, out.String(), tc.wantOut)
			assert.Empty(t, errOut.String())
		})
	}
	env, out, errOut := testEnv("")
	assert.Equal(t, 2, runMain(context.Background(), env, nil))
	assert.Contains(t, errOut.String(), "usage: globalsearch <command> [flags]")
	assert.Empty(t, out.String())
}
