package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// plan prints the most model calls against the run's ceiling, and refuses a
// plan over it (docs/contract.md#state-machine); in one process --max-model-calls sets the
// ceiling, over GRAPHRAG_MAX_MODEL_CALLS, and its default is the deployed one.
func TestPlanModelCallCeiling(t *testing.T) {
	path := writeIndex(t, smallIndex())
	// One batch: two map attempts and two reduce attempts.
	most := globalsearch.MostModelCalls(1)
	tests := []struct {
		name        string
		args        []string
		env         map[string]string
		wantCode    int
		wantCeiling int
		wantErr     string
	}{
		{name: "default", wantCeiling: globalsearch.DefaultMaxModelCalls},
		{name: "the environment's", env: map[string]string{"GRAPHRAG_MAX_MODEL_CALLS": "40"}, wantCeiling: 40},
		{name: "the flag over the environment", args: []string{"--max-model-calls", fmt.Sprint(most)},
			env: map[string]string{"GRAPHRAG_MAX_MODEL_CALLS": "2"}, wantCeiling: most},
		{name: "flag one below the plan", args: []string{"--max-model-calls", fmt.Sprint(most - 1)}, wantCode: 1,
			wantErr: fmt.Sprintf("the plan needs 1 map batch, so up to %d model calls (2 attempts per batch, 2 for the reduce), but this run may make at most %d", most, most-1)},
		{name: "environment below the plan", env: map[string]string{"GRAPHRAG_MAX_MODEL_CALLS": fmt.Sprint(most - 1)}, wantCode: 1,
			wantErr: fmt.Sprintf("but this run may make at most %d", most-1)},
		{name: "flag not positive", args: []string{"--max-model-calls", "0"}, wantCode: 2,
			wantErr: "--max-model-calls must be a positive number of model calls"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"plan", "--index", path, "--query", "What changed?", "--json"}, tc.args...)
			code := runMain(context.Background(), env, args)
			require.Equal(t, tc.wantCode, code, errOut.String())
			if tc.wantCode != 0 {
				assert.Contains(t, errOut.String(), tc.wantErr)
				assert.Empty(t, out.String(), "no plan is printed")
				return
			}
			var plan planOutput
			require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
			assert.Equal(t, most, plan.MaxModelCalls)
			assert.Equal(t, tc.wantCeiling, plan.ModelCallCeiling)
		})
	}
}

// run refuses the same plan before any model call: the offline model would
// answer, so an answer on stdout would mean the ceiling was not checked.
func TestRunRefusedOverTheCeiling(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, []string{"run", "--index", path, "--query", "What changed?", "--json",
		"--max-model-calls", fmt.Sprint(globalsearch.MostModelCalls(1) - 1)})
	require.Equal(t, 1, code, errOut.String())
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "raise maxModelCalls")
	assert.Zero(t, res.Diagnostics.ModelCalls)
}

// A ceiling above the default is the deployment's own choice: run takes it.
func TestRunWithACeilingAboveTheDefault(t *testing.T) {
	path := writeIndex(t, smallIndex())
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"--max-model-calls", fmt.Sprint(globalsearch.DefaultMaxModelCalls * 2)}, nil},
		{"environment", nil, map[string]string{"GRAPHRAG_MAX_MODEL_CALLS": fmt.Sprint(globalsearch.DefaultMaxModelCalls * 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"run", "--index", path, "--query", "What changed?", "--json"}, tc.args...)
			require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
			var res globalsearch.Result
			require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
			assert.NotEqual(t, globalsearch.StatusFailed, res.Status, res.Error)
		})
	}
}
