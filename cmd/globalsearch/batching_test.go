package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchingFlag: --batching and GRAPHRAG_BATCHING reach the request
// (docs/contract.md#stable-batching), and plan says which order it used.
func TestBatchingFlag(t *testing.T) {
	path := writeIndex(t, smallIndex())
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "stable, seed 0 unless given", args: []string{"--batching", "stable"}, wantOut: "stable batching, seed 0)"},
		{name: "stable with a seed", args: []string{"--batching", "stable", "--seed", "4"}, wantOut: "stable batching, seed 4)"},
		{name: "greedy", args: []string{"--batching", "greedy", "--seed", "4"}, wantOut: ", seed 4)"},
		{name: "the environment's default", env: map[string]string{"GRAPHRAG_BATCHING": "stable"}, wantOut: "stable batching, seed 0)"},
		{name: "the flag wins over the environment", args: []string{"--batching", "greedy", "--no-shuffle"}, env: map[string]string{"GRAPHRAG_BATCHING": "stable"}, wantOut: "no shuffle)"},
		{name: "an unknown word", args: []string{"--batching", "fast"}, wantCode: 2, wantErr: `batching must be one of greedy, stable`},
		{name: "stable refuses --no-shuffle", args: []string{"--batching", "stable", "--no-shuffle"}, wantCode: 2, wantErr: `which batching "stable" does not`},
		{name: "a bad environment", env: map[string]string{"GRAPHRAG_BATCHING": "yes"}, wantCode: 2, wantErr: `GRAPHRAG_BATCHING: batching must be one of greedy, stable`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"plan", "--index", path, "--query", "What changed?"}, tc.args...)
			code := runMain(context.Background(), env, args)
			require.Equal(t, tc.wantCode, code, errOut.String())
			assert.Contains(t, out.String(), tc.wantOut)
			assert.Contains(t, errOut.String(), tc.wantErr)
		})
	}
	t.Run("plan --json names stable batching", func(t *testing.T) {
		for _, tc := range []struct{ batching, want string }{{"stable", "stable"}, {"greedy", ""}} {
			env, out, errOut := testEnv("")
			code := runMain(context.Background(), env, []string{"plan", "--index", path, "--query", "What changed?", "--json", "--batching", tc.batching})
			require.Equal(t, 0, code, errOut.String())
			var plan map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
			if tc.want == "" {
				assert.NotContains(t, plan, "batching", "a greedy plan prints as it always did")
			} else {
				assert.Equal(t, tc.want, plan["batching"])
			}
		}
	})
	t.Run("help names the variable", func(t *testing.T) {
		env, out, _ := testEnv("")
		require.Equal(t, 0, runMain(context.Background(), env, []string{"plan", "-h"}))
		assert.Contains(t, out.String(), "$GRAPHRAG_BATCHING sets the default")
	})
}
