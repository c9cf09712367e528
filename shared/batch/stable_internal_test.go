package batch

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// parts are the parts of ids, one each, every one of count code points.
func partsOf(count int, ids ...string) []part {
	out := make([]part, len(ids))
	for i, id := range ids {
		out[i] = part{id: id, key: id, count: tokens.Count{ASCII: count}}
	}
	return out
}

// TestStableEndsOfEqualTotals: of two cuts with equal totals the batches
// end earliest, from the first (docs/contract.md#stable-batching). A
// community split in three parts, two of which fit a batch, can be cut
// [1][2 3] or [1 2][3]: both have two batches and only boundaries of
// weight 0, so only the rule for equal totals chooses.
func TestStableEndsOfEqualTotals(t *testing.T) {
	prompt := tokens.NewPromptWith(tokens.EstimateCounter, "Question: q")
	newline := tokens.EstimateCounter.Join()
	const partRunes = 400
	two := tokens.Count{ASCII: partRunes}.Add(newline).Add(tokens.Count{ASCII: partRunes})
	budget := prompt.Tokens(two)
	require.False(t, prompt.Fits(two.Add(newline).Add(tokens.Count{ASCII: partRunes}), budget), "three parts must not fit")

	tests := []struct {
		name  string
		parts []part
		want  []int
	}{
		{"one community in three parts", partsOf(partRunes, "c1", "c1", "c1"), []int{1, 3}},
		{"one community in five parts", partsOf(partRunes, "c1", "c1", "c1", "c1", "c1"), []int{1, 3, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, stableEnds(func(c tokens.Count) bool { return prompt.Fits(c, budget) }, newline, 0, tc.parts))
		})
	}
}

// contractWeight is the boundary weight after a community as
// docs/contract.md#stable-batching states it, computed apart from the code.
func contractWeight(seed int64, id string) float64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	sum := sha256.Sum256(append(b[:], id...))
	w := binary.BigEndian.Uint64(sum[8:16])
	u := (math.Floor(float64(w)/(1<<11)) + 0.5) / (1 << 53)
	return math.Pow(-math.Log(u), 1.5)
}

// TestBoundaryWeight: a boundary between two communities weighs e^1.5 of
// the community before it; one inside a split community and the end weigh
// 0 (docs/contract.md#stable-batching). A boundary inside a split
// community that weighed as the one after it would draw cuts into the
// community, and a weight of e rather than e^1.5 would let no boundary
// outweigh its neighbours enough to hold the cuts in place.
func TestBoundaryWeight(t *testing.T) {
	parts := partsOf(10, "a", "b", "b", "b", "community-0007", "c")
	tests := []struct {
		name string
		seed int64
		j    int
		want float64
	}{
		{"between two communities", 0, 1, contractWeight(0, "a")},
		{"inside a split community", 0, 2, 0},
		{"inside it again", 0, 3, 0},
		{"after the split community", 0, 4, contractWeight(0, "b")},
		{"another seed", 7, 5, contractWeight(7, "community-0007")},
		{"the end", 0, 6, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InEpsilon(t, tc.want+1, boundaryWeight(tc.seed, parts, tc.j)+1, 1e-12)
		})
	}
}

// TestBoundaryWeightsHeavyTail: over many communities the weights have the
// mean of e^1.5 for an exponential e, Γ(2.5) ≈ 1.33 (e alone has mean 1),
// and about 1% outweigh a batch (e^1.5 > 10 when e > 4.64; e alone does so
// for 0.005%): the few heavy boundaries that hold the cuts in place.
func TestBoundaryWeightsHeavyTail(t *testing.T) {
	const n = 20000
	ids := make([]string, n+1)
	for i := range ids {
		ids[i] = "community-" + strconv.Itoa(i)
	}
	parts := partsOf(10, ids...)
	var sum float64
	heavy := 0
	for j := 1; j <= n; j++ {
		w := boundaryWeight(3, parts, j)
		sum += w
		if w > BatchCost {
			heavy++
		}
	}
	assert.InDelta(t, math.Gamma(2.5), sum/n, 0.08, "mean weight")
	assert.InDelta(t, 0.0097, float64(heavy)/n, 0.004, "share of boundaries heavier than a batch")
}
