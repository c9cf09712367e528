package batch_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

const stableSkeleton = "Question: what changed?"

// stableItems are n items of words drawn from seed, up to about 140
// tokens each, and one in ten of large bytes instead (10,000 is split at
// a budget of 2,000 tokens, 3,000 is not).
func stableItems(n int, seed uint64, large int) []batch.Item {
	rng := rand.New(rand.NewPCG(seed, 1))
	words := []string{"port", "trade", "drought", "ferry", "wind", "社区", "café", "quota"}
	items := make([]batch.Item, n)
	for i := range items {
		size := 40 + rng.IntN(500)
		if rng.IntN(10) == 0 {
			size = large
		}
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		items[i] = batch.Item{ID: fmt.Sprintf("community-%04d", i), Text: b.String()}
	}
	return items
}

// inStableOrder is items in StableOrder's order for seed.
func inStableOrder(items []batch.Item, seed int64) []batch.Item {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	out := make([]batch.Item, 0, len(items))
	for _, i := range batch.StableOrder(ids, seed) {
		out = append(out, items[i])
	}
	return out
}

func TestStableOrder(t *testing.T) {
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = fmt.Sprintf("c%d", i)
	}
	ordered := func(ids []string, seed int64) []string {
		var out []string
		for _, i := range batch.StableOrder(ids, seed) {
			out = append(out, ids[i])
		}
		return out
	}
	base := ordered(ids, 0)
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"a permutation of the ids", func(t *testing.T) {
			assert.ElementsMatch(t, ids, base)
			assert.NotEqual(t, ids, base, "the order is not id order")
		}},
		{"the same ids give the same order, whatever order they come in", func(t *testing.T) {
			reversed := slices.Clone(ids)
			slices.Reverse(reversed)
			assert.Equal(t, base, ordered(reversed, 0))
		}},
		{"adding and removing ids keeps the others in their order", func(t *testing.T) {
			changed := append(slices.Delete(slices.Clone(ids), 50, 51), "new-1", "new-2")
			kept := slices.DeleteFunc(ordered(changed, 0), func(id string) bool { return strings.HasPrefix(id, "new-") })
			assert.Equal(t, slices.DeleteFunc(slices.Clone(base), func(id string) bool { return id == ids[50] }), kept)
		}},
		{"another seed gives another order", func(t *testing.T) {
			assert.NotEqual(t, base, ordered(ids, 1))
		}},
		{"no ids", func(t *testing.T) {
			assert.Empty(t, batch.StableOrder(nil, 0))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.check)
	}
}

// TestPackStableProperties checks what every plan must hold: each batch
// passes the fit test, every part is present once in order, and the same
// input gives the same batches.
func TestPackStableProperties(t *testing.T) {
	tests := []struct {
		name   string
		budget int
		items  []batch.Item
		split  bool // some item is split over batches
	}{
		{"no items", 2000, nil, false},
		{"one small item", 2000, []batch.Item{{ID: "c1", Text: "one short summary"}}, false},
		{"an item split over many batches", 200, []batch.Item{{ID: "c1", Text: strings.Repeat("Shared trend. ", 300)}}, true},
		{"an empty text beside others", 2000, []batch.Item{{ID: "c1", Text: ""}, {ID: "c2", Text: "text"}}, false},
		{"many items, some split", 2000, stableItems(300, 1, 10000), true},
		{"many items, a tight budget", 400, stableItems(100, 2, 3000), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := inStableOrder(tc.items, 3)
			got, err := batch.PackStable(stableSkeleton, tc.budget, 3, items)
			require.NoError(t, err)
			for _, b := range got {
				assertFits(t, stableSkeleton, tc.budget, b)
			}
			if len(items) > 0 {
				assertRoundTrip(t, items, got)
			} else {
				assert.Empty(t, got)
			}
			split := slices.ContainsFunc(got, func(b batch.Batch) bool { return strings.Contains(b.Content, "| summary part 2]") })
			assert.Equal(t, tc.split, split, "some item split")
			again, err := batch.PackStable(stableSkeleton, tc.budget, 3, slices.Clone(items))
			require.NoError(t, err)
			assert.Equal(t, got, again, "same input, same batches")
		})
	}
}

func TestPackStableErrors(t *testing.T) {
	tests := []struct {
		name     string
		budget   int
		items    []batch.Item
		tooSmall string
	}{
		{name: "skeleton alone does not fit", budget: 1, items: []batch.Item{{ID: "c1", Text: "text"}}},
		{name: "not one code point fits beside the header", budget: 14, items: []batch.Item{{ID: "c1", Text: "text"}}, tooSmall: "c1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := batch.PackStable(stableSkeleton, tc.budget, 0, tc.items)
			require.Error(t, err)
			var small *batch.TooSmallError
			if tc.tooSmall == "" {
				assert.ErrorIs(t, err, batch.ErrPromptTooLarge)
				return
			}
			require.True(t, errors.As(err, &small), "got %v", err)
			assert.Equal(t, tc.tooSmall, small.ID)
		})
	}
}

// TestPackStableLocalChange edits one item of a 600-item plan at a time
// and checks that only batches next to the edit change: the batches of
// the new plan that the old one lacks (most edits: one) are at most
// maxChanged, and each lies within maxChanged batches of the batch holding
// the edited item.
func TestPackStableLocalChange(t *testing.T) {
	const budget, seed, maxChanged = 2000, 5, 5
	edits := []struct {
		name string
		edit func(items []batch.Item, k int) ([]batch.Item, string)
	}{
		{"change a text", func(items []batch.Item, k int) ([]batch.Item, string) {
			items = slices.Clone(items)
			items[k].Text += " revised after new documents arrived"
			return items, items[k].ID
		}},
		{"add an item", func(items []batch.Item, k int) ([]batch.Item, string) {
			id := fmt.Sprintf("added-%d", k)
			return append(slices.Clone(items), batch.Item{ID: id, Text: items[k].Text}), id
		}},
		{"remove an item", func(items []batch.Item, k int) ([]batch.Item, string) {
			return slices.Delete(slices.Clone(items), k, k+1), items[k].ID
		}},
	}
	for _, data := range []struct {
		name  string
		items []batch.Item
	}{
		{"mixed sizes", stableItems(600, 9, 3000)},
		{"some split", stableItems(600, 9, 10000)},
	} {
		old, err := batch.PackStable(stableSkeleton, budget, seed, inStableOrder(data.items, seed))
		require.NoError(t, err)
		oldContent := map[string]bool{}
		for _, b := range old {
			oldContent[b.Content] = true
		}
		for _, e := range edits {
			for k := 0; k < len(data.items)-1; k += 37 {
				t.Run(fmt.Sprintf("%s, %s %d", data.name, e.name, k), func(t *testing.T) {
					items, near := e.edit(data.items, k)
					got, err := batch.PackStable(stableSkeleton, budget, seed, inStableOrder(items, seed))
					require.NoError(t, err)
					holds := func(b batch.Batch) bool { return slices.Contains(b.IDs, near) }
					at := slices.IndexFunc(got, holds)
					if at < 0 { // removed: where it was, give or take the one batch fewer
						at = slices.IndexFunc(old, holds)
					}
					require.GreaterOrEqual(t, at, 0)
					var changed []int
					for i, b := range got {
						if !oldContent[b.Content] {
							changed = append(changed, i)
						}
					}
					assert.LessOrEqual(t, len(changed), maxChanged, "changed batches %v of %d, the edit in batch %d", changed, len(got), at)
					for _, i := range changed {
						assert.LessOrEqual(t, max(i-at, at-i), maxChanged, "batch %d changed, the edit is in batch %d", i, at)
					}
				})
			}
		}
	}
}
