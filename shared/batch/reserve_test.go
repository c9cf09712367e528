package batch_test

import (
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// TestPackReservingMatchesReference: a reserve is measured in every fit
// test as so many more code points of the skeleton would be, and left out
// of each batch's Tokens (docs/contract.md#batching, the question
// allowance), on the random inputs TestPackMatchesReference packs.
func TestPackReservingMatchesReference(t *testing.T) {
	iterations := 600
	if testing.Short() {
		iterations = 150
	}
	rng := rand.New(rand.NewPCG(20261202, 34))
	for i := range iterations {
		skeleton, budget, items := randomInput(rng)
		ascii, other := rng.IntN(40), rng.IntN(6)
		pad := strings.Repeat("x", ascii) + strings.Repeat("é", other)
		reserve := tokens.Count{ASCII: ascii, NonASCII: other}
		want, wantErr := referencePackPadded(skeleton, pad, budget, items)
		got, err := batch.PackSeqReserving(tokens.EstimateCounter, skeleton, reserve, budget, slices.Values(items))
		if !assert.Equal(t, wantErr, err, "iteration %d: error", i) || !assert.Equal(t, want, got, "iteration %d: batches", i) {
			t.Logf("iteration %d: skeleton %q pad %q budget %d items %s", i, skeleton, pad, budget, describe(items))
			t.FailNow()
		}
		for _, b := range got {
			assert.LessOrEqual(t, tokens.Estimate(skeleton+pad+"\n"+b.Content), budget, "iteration %d: the fit test with the reserve", i)
		}
	}
}

// A reserve is room held in every batch: it changes where batches are cut,
// never what a batch's Tokens measure, and one that leaves no room for the
// skeleton is refused before any item is drawn, greedy and stable alike.
func TestPackReserving(t *testing.T) {
	const skeleton = "Question: q"
	items := []batch.Item{{ID: "a", Text: strings.Repeat("alpha ", 40)}, {ID: "b", Text: strings.Repeat("beta ", 40)}}
	both := tokens.Estimate(skeleton + "\n" + batch.Header("a", 1) + "\n" + items[0].Text + "\n" + batch.Header("b", 1) + "\n" + items[1].Text)
	packs := map[string]func(reserve tokens.Count, budget int, items iter.Seq[batch.Item]) ([]batch.Batch, error){
		"greedy": func(reserve tokens.Count, budget int, items iter.Seq[batch.Item]) ([]batch.Batch, error) {
			return batch.PackSeqReserving(tokens.EstimateCounter, skeleton, reserve, budget, items)
		},
		"stable": func(reserve tokens.Count, budget int, items iter.Seq[batch.Item]) ([]batch.Batch, error) {
			return batch.PackStableSeqReserving(tokens.EstimateCounter, skeleton, reserve, budget, 0, items)
		},
	}
	tests := []struct {
		name    string
		reserve tokens.Count
		budget  int
		batches int
		wantErr error
	}{
		{name: "no reserve: both texts in one batch", budget: both, batches: 1},
		{name: "a reserve of one token's code points splits them", reserve: tokens.Count{ASCII: 4}, budget: both, batches: 2},
		{name: "a reserve of other code points counts at their rate", reserve: tokens.Count{NonASCII: 2}, budget: both, batches: 2},
		{name: "room for the reserve: one batch", reserve: tokens.Count{ASCII: 4}, budget: both + 1, batches: 1},
		{name: "a reserve that leaves no room for the skeleton", reserve: tokens.Count{ASCII: 400}, budget: tokens.Estimate(skeleton+"\n") + 99, wantErr: batch.ErrPromptTooLarge},
	}
	for name, pack := range packs {
		for _, tc := range tests {
			t.Run(name+": "+tc.name, func(t *testing.T) {
				drawn := 0
				counted := func(yield func(batch.Item) bool) {
					for _, it := range items {
						drawn++
						if !yield(it) {
							return
						}
					}
				}
				got, err := pack(tc.reserve, tc.budget, counted)
				if tc.wantErr != nil {
					require.ErrorIs(t, err, tc.wantErr)
					assert.Zero(t, drawn)
					return
				}
				require.NoError(t, err)
				require.Len(t, got, tc.batches)
				for _, b := range got {
					assert.Equal(t, tokens.Estimate(skeleton+"\n"+b.Content), b.Tokens, "Tokens measure the prompt sent, not the reserve")
				}
			})
		}
	}
}

// With a counter that is not a sum over code points the reserve is held
// in its exact tokens: every batch leaves that much of the budget free,
// splits included, and Tokens still bounds the prompt sent.
func TestPackCountedHoldsTheReserve(t *testing.T) {
	const skeleton = "Q: what?\n<data>\n</data>"
	items := []batch.Item{
		{ID: "a", Text: "short"},
		{ID: "b", Text: strings.Repeat("long text 中文 ", 80)},
		{ID: "d", Text: strings.Repeat("中", 200)},
	}
	for _, reserve := range []int{0, 7, 30} {
		batches, err := batch.PackSeqReserving(thirds{}, skeleton, tokens.Count{Exact: reserve}, 120, slices.Values(items))
		require.NoError(t, err)
		require.NotEmpty(t, batches)
		for _, b := range batches {
			assert.LessOrEqual(t, thirds{}.Of(skeleton+"\n"+b.Content+"\n").Exact, b.Tokens, "reserve %d: Tokens bounds the prompt", reserve)
			assert.LessOrEqual(t, b.Tokens+reserve, 120, "reserve %d: the reserve stays free", reserve)
		}
	}
}
