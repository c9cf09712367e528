package globalsearch

import "fmt"

// The bound on the map-text bytes one prepare builds
// (docs/contract.md#plan-limits), checked before any text is built.

// sizeMapTexts records the exact size of every map text and refuses a plan
// whose texts exceed mapTextLimit (docs/contract.md#plan-limits): the map
// texts are most of what prepare holds, and a chunk cited from many leaves
// is repeated in each of their map texts, so a small index can ask for
// gigabytes. Their size is known before any is built, so such a plan is
// refused first.
func (e *Engine) sizeMapTexts(p Params, m *mapInputs) error {
	m.sizes = make([]int, len(m.selected))
	w := newWalkScratch()
	var total int64
	for i := range m.selected {
		m.sizes[i] = m.mapTextSize(i, w)
		total += int64(m.sizes[i])
	}
	if limit, why := e.mapTextLimit(p); total > limit {
		return Errorf(KindPlanTooLarge,
			"the map texts of %d summaries hold %d bytes but this deployment plans at most %d (%s): choose a coarser communityLevel, which repeats cited excerpts less, or a namespace whose claims cite fewer shared chunks",
			len(m.selected), total, limit, why)
	}
	return nil
}

// mapTextLimit is the largest total of map-text bytes prepare builds
// (docs/contract.md#plan-limits), and what it derives from. With a batch limit, a plan whose
// map texts exceed MaxBatches batches of the most bytes one batch can hold
// would need more batches than allowed, so that bound never refuses a plan
// that fits: a batch passes the fit test only if 20n + 9a <= 36 x budget
// over its content's n non-ASCII and a ASCII code points (docs/contract.md#token-estimate), and
// bytes <= 4n + a, so one batch holds at most 36 x budget / 5 bytes (4-byte
// runes). The ceiling bounds what one process holds whatever the budgets.
func (e *Engine) mapTextLimit(p Params) (int64, string) {
	ceiling := e.MaxMapTextBytes
	if ceiling <= 0 {
		ceiling = DefaultMaxMapTextBytes
	}
	why := fmt.Sprintf("the map-text ceiling of %d bytes", ceiling)
	if e.MaxBatches > 0 {
		perBatch := (36*int64(p.MapPromptBudget()) + 4) / 5
		if byBatches := int64(e.MaxBatches) * perBatch; byBatches < ceiling {
			return byBatches, fmt.Sprintf("%d batches of at most %d bytes at mapPromptBudget %d: raise mapTokenBudget",
				e.MaxBatches, perBatch, p.MapPromptBudget())
		}
	}
	return ceiling, why
}
