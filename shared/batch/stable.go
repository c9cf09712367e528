package batch

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"iter"
	"math"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// BatchCost is what one more batch costs stable packing, in boundary
// weights (docs/contract.md#stable-batching): high enough that the batches
// are filled (about 85% on the generated index, against 94% for greedy
// packing), low enough that a boundary is drawn to the heavy boundaries
// around it rather than to the running fill, which a change upstream
// would move.
const BatchCost = 10

// hashed is the seeded hash of id that places it and weighs the boundary
// after it (docs/contract.md#stable-batching): the first 8 bytes of
// SHA-256(seed as 8 bytes big-endian, id) order the items, the next 8 the
// boundary's weight.
func hashed(seed int64, id string) (order, weight uint64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(id))
	sum := h.Sum(nil)
	return binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])
}

// StableOrder is the order in which stable packing takes the items of ids
// (docs/contract.md#stable-batching): indexes into ids, by the seeded hash
// of each id, equal hashes (never seen) by id. An item keeps its place
// among the others whatever is added, removed or changed around it.
func StableOrder(ids []string, seed int64) []int {
	return StableOrderOf(ids, ids, seed)
}

// StableOrderOf is StableOrder by keys (Item.Key) rather than ids: by the
// seeded hash of each key, equal hashes by key, equal keys by ties, then by
// index. keys and ties are as long as each other.
func StableOrderOf(keys, ties []string, seed int64) []int {
	hashes := make([]uint64, len(keys))
	order := make([]int, len(keys))
	for i, k := range keys {
		hashes[i], _ = hashed(seed, k)
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(hashes[a], hashes[b]), cmp.Compare(keys[a], keys[b]), cmp.Compare(ties[a], ties[b]), cmp.Compare(a, b))
	})
	return order
}

// LeastHashed is the one of elements whose seeded hash orders first, ""
// for none: a min-hash, which a change keeps unless it adds or removes
// that element (docs/contract.md#stable-batching).
func LeastHashed(seed int64, elements iter.Seq[string]) string {
	least, found := "", false
	var min uint64
	for e := range elements {
		if h, _ := hashed(seed, e); !found || h < min || (h == min && e < least) {
			least, min, found = e, h, true
		}
	}
	return least
}

// PackStable is Pack with boundaries that depend on the items rather than
// on where the running fill happens to stop (docs/contract.md#stable-batching):
// the items, in the order given (StableOrder's), are split as Pack splits
// them, and the batches are the runs of parts, each passing the fit test,
// that maximise the total weight of their boundaries minus BatchCost per
// batch. A change, addition or removal thus moves only the boundaries near
// it.
func PackStable(skeleton string, budget int, seed int64, items []Item) ([]Batch, error) {
	return PackStableSeq(skeleton, budget, seed, slices.Values(items))
}

// PackStableSeq is PackStable over items drawn one at a time. The
// boundaries are chosen once every part is known, so it holds the parts
// of all the items until then, about what the batches hold; each part is
// let go once its batch is built.
func PackStableSeq(skeleton string, budget int, seed int64, items iter.Seq[Item]) ([]Batch, error) {
	return PackStableSeqWith(tokens.EstimateCounter, skeleton, budget, seed, items)
}

// ErrStableNeedsCodePoints refuses stable batching with a counter that
// does not count by code point: its boundaries are chosen over running
// counts that add, which an exact tokenizer's do not (PackSeqWith counts
// those whole, ahead of a greedy pack).
var ErrStableNeedsCodePoints = errors.New(`batching "stable" counts tokens by code point: use tokenizer "estimate" or "calibrated" with it`)

// PackStableSeqWith is PackStableSeq counting with c, which must count by
// code point (the estimate, or calibrated rates).
func PackStableSeqWith(c tokens.Counter, skeleton string, budget int, seed int64, items iter.Seq[Item]) ([]Batch, error) {
	return PackStableSeqReserving(c, skeleton, tokens.Count{}, budget, seed, items)
}

// PackStableSeqReserving is PackStableSeqWith with reserve counted in
// every fit test, as PackSeqReserving counts it.
func PackStableSeqReserving(c tokens.Counter, skeleton string, reserve tokens.Count, budget int, seed int64, items iter.Seq[Item]) ([]Batch, error) {
	if !c.ByCodePoint() {
		return nil, ErrStableNeedsCodePoints
	}
	p, err := newPacker(c, skeleton, reserve, budget)
	if err != nil {
		return nil, err
	}
	p.collect = true
	for it := range items {
		if err := p.addItem(it); err != nil {
			return nil, err
		}
	}
	all := p.parts
	start := 0
	for _, end := range stableEnds(p.fits, p.newline, seed, all) {
		p.parts, p.count = all[start:end], contentCount(p.newline, all[start:end])
		p.flush()
		start = end
	}
	return p.batches, nil
}

// stableEnds chooses the batches of parts (docs/contract.md#stable-batching):
// the end of each, as an index into parts, for the runs that pass the fit
// test and maximise the weight of the boundaries between them minus
// BatchCost per batch. best[i] is the most the parts from i on can score,
// computed from the last part back; a run starting at i can end only where
// it still fits, so this is linear in the parts times the parts a batch
// holds. A part that fits nowhere beside others is a batch of its own, as
// in Pack.
func stableEnds(fits func(tokens.Count) bool, newline tokens.Count, seed int64, parts []part) []int {
	n := len(parts)
	weights := make([]float64, n+1)
	for j := 1; j <= n; j++ {
		weights[j] = boundaryWeight(seed, parts, j)
	}
	best := make([]float64, n+1)
	next := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		best[i] = math.Inf(-1)
		var c tokens.Count
		for j := i + 1; j <= n; j++ {
			if j > i+1 {
				c = c.Add(newline)
			}
			c = c.Add(parts[j-1].count)
			if j > i+1 && !fits(c) {
				break
			}
			if v := weights[j] - BatchCost + best[j]; v > best[i] {
				best[i], next[i] = v, j
			}
		}
	}
	var ends []int
	for i := 0; i < n; i = next[i] {
		ends = append(ends, next[i])
	}
	return ends
}

// boundaryWeight is the weight of a boundary before parts[j]: none at the
// end or inside a split community; else e^1.5 for an exponential draw e
// from the seeded hash of the community before it, so that a few
// boundaries weigh far more than their neighbours and every nearby
// arrangement of batches agrees on them. (The power and BatchCost were
// chosen on the generated index, trying powers 1 to 4 with costs for
// each: this pair kept the most batches at a mean fill of 85%. A further
// cost for batches under 72% full kept a little more there, whose texts
// are all of one size, but let one change of texts of mixed sizes re-cut
// up to eight batches in TestPackStableLocalChange, so there is none.)
func boundaryWeight(seed int64, parts []part, j int) float64 {
	if j == len(parts) || parts[j].id == parts[j-1].id {
		return 0
	}
	_, w := hashed(seed, parts[j-1].key)
	u := (float64(w>>11) + 0.5) / (1 << 53) // in (0, 1)
	e := -math.Log(u)
	return e * math.Sqrt(e)
}

// contentCount is the count of parts joined by "\n", which adds newline.
func contentCount(newline tokens.Count, parts []part) tokens.Count {
	var c tokens.Count
	for i, pt := range parts {
		if i > 0 {
			c = c.Add(newline)
		}
		c = c.Add(pt.count)
	}
	return c
}
