package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
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
				var stderr bytes.Buffer
				env := fakeEnv(tc.vars)
				env.stderr = &stderr
				assert.Equal(t, 2, runMain(context.Background(), env, args))
				for _, want := range tc.want {
					assert.Contains(t, stderr.String(), want)
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

// TestParseFlags: every command that uses parseFlags refuses -h, a bad
// flag and a stray argument as usage errors (exit 2), and names the flags
// given.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		wantSet map[string]bool
	}{
		{"flags given", []string{"--a", "x"}, "", map[string]bool{"a": true}},
		{"none", nil, "", map[string]bool{}},
		{"help", []string{"-h"}, "help requested", nil},
		{"unknown flag", []string{"--c"}, "flag provided but not defined: -c", nil},
		{"stray argument", []string{"--a", "x", "extra"}, `unexpected argument "extra"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := testEnv("")
			fs := newFlagSet("test", env)
			fs.String("a", "", "")
			fs.Bool("b", false, "")
			set, err := parseFlags(fs, tc.args)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.wantSet, set)
				return
			}
			var usage *usageError
			require.ErrorAs(t, err, &usage)
			assert.Equal(t, tc.wantErr, err.Error())
		})
	}
}
