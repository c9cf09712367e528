package globalsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// A request may lower the deployment's ceiling on model calls, never raise
// it (docs/contract.md#state-machine); the refusal names both numbers.
func TestMaxModelCallsLowersTheCeiling(t *testing.T) {
	deployment := gs.SpecDefaults
	deployment.MaxModelCalls = 40
	unlimited := gs.SpecDefaults
	unlimited.MaxModelCalls = 0
	tests := []struct {
		name     string
		defaults gs.Defaults
		body     string
		want     int
		wantErr  string
	}{
		{"absent takes the deployment's", deployment, `{"query":"q"}`, 40, ""},
		{"lower is kept", deployment, `{"query":"q","maxModelCalls":12}`, 12, ""},
		{"equal is kept", deployment, `{"query":"q","maxModelCalls":40}`, 40, ""},
		{"spec default", gs.SpecDefaults, `{"query":"q"}`, gs.DefaultMaxModelCalls, ""},
		{"no deployment ceiling", unlimited, `{"query":"q","maxModelCalls":9000}`, 9000, ""},
		{"above the deployment's", deployment, `{"query":"q","maxModelCalls":41}`, 0,
			"maxModelCalls 41 is above this deployment's ceiling of 40 model calls per run: ask for at most 40, or raise the deployment's MaxModelCalls"},
		{"zero", deployment, `{"query":"q","maxModelCalls":0}`, 0, "maxModelCalls must be a positive integer"},
		{"not a number", deployment, `{"query":"q","maxModelCalls":"5"}`, 0, "maxModelCalls must be a positive integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gs.ParseRequest([]byte(tc.body), tc.defaults)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.MaxModelCalls)
			stored, err := json.Marshal(p)
			require.NoError(t, err)
			again, err := gs.ParseRequest(stored, tc.defaults)
			require.NoError(t, err, "the stored request parses again to the same ceiling")
			assert.Equal(t, p.MaxModelCalls, again.MaxModelCalls)
		})
	}
}

func TestMaxModelCallsFromEnv(t *testing.T) {
	tests := []struct {
		value   string
		want    int
		wantErr string
	}{
		{"120", 120, ""},
		{"0", 0, "GRAPHRAG_MAX_MODEL_CALLS: maxModelCalls must be a positive integer"},
		{"many", 0, "GRAPHRAG_MAX_MODEL_CALLS: maxModelCalls must be a positive integer"},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			d, err := gs.DefaultsFromEnv(func(k string) (string, bool) {
				return tc.value, k == "GRAPHRAG_MAX_MODEL_CALLS"
			})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.MaxModelCalls)
		})
	}
}

// Plan refuses a plan whose most model calls (two attempts per map batch
// and two for the reduce) exceed the run's ceiling, and keeps one that
// meets it exactly.
func TestPlanRefusedOverTheModelCallCeiling(t *testing.T) {
	const summaries = 5
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", leafNamespace(summaries)))
	free := oneBatchPerSummary(t, "q?", nil)
	unlimited, err := (&gs.Engine{Index: s}).Plan(context.Background(), free)
	require.NoError(t, err)
	batches := len(unlimited.Batches)
	require.Equal(t, summaries, batches)
	most := gs.MapAttempts*batches + gs.ReduceAttempts
	require.Equal(t, most, gs.MostModelCalls(batches))

	tests := []struct {
		name    string
		ceiling int
		wantErr string
	}{
		{"meets it", most, ""},
		{"one over", most - 1, fmt.Sprintf("the plan needs %d map batches, so up to %d model calls", batches, most)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ceiling := tc.ceiling
			p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.MaxModelCalls = &ceiling })
			plan, err := (&gs.Engine{Index: s}).Plan(context.Background(), p)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Len(t, plan.Batches, batches)
				return
			}
			require.Error(t, err)
			assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err))
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Contains(t, err.Error(), fmt.Sprintf("at most %d: raise maxModelCalls", ceiling))
		})
	}
}

func TestMostModelCallsOfNoBatch(t *testing.T) {
	assert.Equal(t, 0, gs.MostModelCalls(0), "a plan with no batch calls nothing")
}
