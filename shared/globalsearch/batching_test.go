package globalsearch_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

const batchingMsg = `batching must be one of greedy, stable`

func TestParseBatching(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		defaults func(d *gs.Defaults)
		wantErr  string
		check    func(t *testing.T, p gs.Params)
	}{
		{name: "greedy by default", body: `{"query":"q"}`, check: func(t *testing.T, p gs.Params) {
			assert.Equal(t, gs.BatchingGreedy, p.Batching)
			assert.True(t, p.SeedGenerated, "greedy draws a seed")
		}},
		{name: "greedy", body: `{"query":"q","batching":"greedy"}`, check: func(t *testing.T, p gs.Params) { assert.Equal(t, gs.BatchingGreedy, p.Batching) }},
		{name: "stable draws no seed", body: `{"query":"q","batching":"stable"}`, check: func(t *testing.T, p gs.Params) {
			assert.Equal(t, gs.BatchingStable, p.Batching)
			assert.Zero(t, p.ShuffleSeed, "a random seed would reorder the next run")
			assert.False(t, p.SeedGenerated)
		}},
		{name: "stable with a seed", body: `{"query":"q","batching":"stable","shuffleSeed":9}`, check: func(t *testing.T, p gs.Params) {
			assert.Equal(t, int64(9), p.ShuffleSeed)
		}},
		{name: "stable with shuffle true", body: `{"query":"q","batching":"stable","shuffle":true}`, check: func(t *testing.T, p gs.Params) {
			assert.Equal(t, gs.BatchingStable, p.Batching)
		}},
		{name: "the deployment's default", body: `{"query":"q"}`, defaults: func(d *gs.Defaults) { d.Batching = gs.BatchingStable },
			check: func(t *testing.T, p gs.Params) { assert.Equal(t, gs.BatchingStable, p.Batching) }},
		{name: "the request wins over the deployment", body: `{"query":"q","batching":"greedy"}`, defaults: func(d *gs.Defaults) { d.Batching = gs.BatchingStable },
			check: func(t *testing.T, p gs.Params) { assert.Equal(t, gs.BatchingGreedy, p.Batching) }},
		{name: "unknown word", body: `{"query":"q","batching":"fast"}`, wantErr: batchingMsg},
		{name: "case matters", body: `{"query":"q","batching":"Stable"}`, wantErr: batchingMsg},
		{name: "empty", body: `{"query":"q","batching":""}`, wantErr: batchingMsg},
		{name: "null", body: `{"query":"q","batching":null}`, wantErr: batchingMsg},
		{name: "a number", body: `{"query":"q","batching":1}`, wantErr: batchingMsg},
		{name: "checked before the later fields", body: `{"query":"q","batching":"fast","queryId":"bad id"}`, wantErr: batchingMsg},
		{name: "stable refuses shuffle false", body: `{"query":"q","batching":"stable","shuffle":false}`,
			wantErr: `shuffle false keeps summaries in id order, which batching "stable" does not: it orders them by a seeded hash of their claims or sentences; ask for batching "greedy" with shuffle false, or drop shuffle`},
		{name: "so does a deployment's stable", body: `{"query":"q","shuffle":false}`, defaults: func(d *gs.Defaults) { d.Batching = gs.BatchingStable },
			wantErr: `shuffle false keeps summaries in id order`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := gs.SpecDefaults
			if tc.defaults != nil {
				tc.defaults(&d)
			}
			p, err := gs.ParseRequest([]byte(tc.body), d)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, p)
		})
	}
}

func TestBatchingFromEnv(t *testing.T) {
	tests := []struct {
		value, want, wantErr string
	}{
		{value: "stable", want: gs.BatchingStable},
		{value: "greedy", want: gs.BatchingGreedy},
		{value: "Stable", wantErr: "GRAPHRAG_BATCHING: " + batchingMsg},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			d, err := gs.DefaultsFromEnv(func(k string) (string, bool) { return tc.value, k == "GRAPHRAG_BATCHING" })
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.Batching)
		})
	}
	assert.Equal(t, "GRAPHRAG_BATCHING", gs.DefaultVariable("batching"))
}

// TestBatchingSameRequest: a stored request from before the field existed
// (batching "") is the greedy request it was; two stable requests without
// a seed are one request, and stable differs from greedy.
func TestBatchingSameRequest(t *testing.T) {
	parse := func(body string) gs.Params {
		p, err := gs.ParseRequest([]byte(body), gs.SpecDefaults)
		require.NoError(t, err)
		return p
	}
	greedy := parse(`{"query":"q","queryId":"a","shuffleSeed":1}`)
	old := greedy
	old.Batching = ""
	tests := []struct {
		name string
		a, b gs.Params
		same bool
	}{
		{"stored before the field", greedy, old, true},
		{"two stable requests without a seed", parse(`{"query":"q","queryId":"a","batching":"stable"}`), parse(`{"query":"q","queryId":"a","batching":"stable"}`), true},
		{"stable is not greedy", parse(`{"query":"q","queryId":"a","batching":"stable","shuffleSeed":1}`), greedy, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, tc.a.SameRequest(tc.b))
			assert.Equal(t, tc.same, tc.b.SameRequest(tc.a))
		})
	}
}

// TestPlanStable plans with stable batching through the engine: every
// selected summary once, each batch within the budget, the same batches on
// every plan, and another seed another order.
func TestPlanStable(t *testing.T) {
	var r gs.Records
	for i := range 60 {
		r.Summaries = append(r.Summaries, gs.Summary{ID: fmt.Sprintf("c%02d", i), Summary: strings.Repeat(fmt.Sprintf("Trend %d of the decade. ", i), 10+i%7)})
	}
	e, _ := newEngine(t, r, nil)
	plan := func(t *testing.T, seed int64) gs.Plan {
		stable := gs.BatchingStable
		p, err := gs.Request{Query: "What changed?", Batching: &stable, ShuffleSeed: &seed, MapTokenBudget: ptrInt(1500), MapOutputReserve: ptrInt(0)}.Params(gs.SpecDefaults)
		require.NoError(t, err)
		out, err := e.Plan(context.Background(), p)
		require.NoError(t, err)
		return out
	}
	ids := func(p gs.Plan) []string {
		var out []string
		for _, b := range p.Batches {
			out = append(out, b.CommunityIDs...)
		}
		return out
	}
	first := plan(t, 0)
	require.Greater(t, len(first.Batches), 3)
	var want []string
	for _, s := range r.Summaries {
		want = append(want, s.ID)
	}
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"every summary once", func(t *testing.T) { assert.ElementsMatch(t, want, ids(first)) }},
		{"not in id order", func(t *testing.T) { assert.False(t, slices.IsSorted(ids(first))) }},
		{"every batch fits", func(t *testing.T) {
			for _, b := range first.Batches {
				assert.LessOrEqual(t, b.EstimatedTokens, 1500)
			}
		}},
		{"the same batches again", func(t *testing.T) { assert.Equal(t, first.Batches, plan(t, 0).Batches) }},
		{"another seed, another order", func(t *testing.T) { assert.NotEqual(t, ids(first), ids(plan(t, 1))) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.check)
	}
}

func ptrInt(n int) *int { return &n }

// Stable batching chooses its boundaries over counts that add, so an
// exact tokenizer is refused with the request; code-point counters pack.
func TestStableBatchingNeedsACodePointCounter(t *testing.T) {
	tests := []struct {
		tokenizer string
		wantErr   bool
	}{
		{"estimate", false},
		{"calibrated", false},
		{"o200k", true},
		{"cl100k", true},
	}
	for _, tc := range tests {
		t.Run(tc.tokenizer, func(t *testing.T) {
			body := `{"query":"q","batching":"stable","shuffleSeed":1,"tokenizer":"` + tc.tokenizer + `"}`
			_, err := gs.ParseRequest([]byte(body), gs.SpecDefaults)
			if !tc.wantErr {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.Contains(t, err.Error(), `batching "stable" counts tokens by code point`)
		})
	}
}
