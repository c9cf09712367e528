package globalsearch

import (
	"cmp"
	"slices"
)

// The ceiling of communityLevel "auto" bounds what the plan reports
// (docs/contract.md#auto-level): a rung's size leaves out what packing
// adds (each batch's prompt and part headers), so a rung whose size fits
// is packed as prepare would pack it, and taken only if its batches fit
// too.

// chooseRung is the finest rung of ladder whose plan's estimated map input
// (plannedTokens) is at most ceiling; it records in ladder the planned figure of each
// rung it packed. None fits is invalid input naming the smallest ceiling
// that would fit: the least planned figure of any rung.
func chooseRung(ladder []Rung, ceiling int, plannedTokens func(Level) (int, error)) (Rung, error) {
	for i := range ladder {
		if ladder[i].MapInputTokens > ceiling {
			continue
		}
		planned, err := plannedTokens(ladder[i].Level)
		if err != nil {
			return Rung{}, err
		}
		ladder[i].PlannedMapInputTokens = planned
		if planned <= ceiling {
			return ladder[i], nil
		}
	}
	// A plan is never smaller than its rung's size, so packing the rungs
	// from the smallest size up can stop at the first size past the least
	// plan found.
	order := make([]int, len(ladder))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ladder[a].MapInputTokens, ladder[b].MapInputTokens) })
	best := -1
	for _, i := range order {
		if best >= 0 && ladder[i].MapInputTokens >= ladder[best].PlannedMapInputTokens {
			break
		}
		if ladder[i].PlannedMapInputTokens == 0 {
			planned, err := plannedTokens(ladder[i].Level)
			if err != nil {
				return Rung{}, err
			}
			ladder[i].PlannedMapInputTokens = planned
		}
		if best < 0 || ladder[i].PlannedMapInputTokens < ladder[best].PlannedMapInputTokens {
			best = i
		}
	}
	smallest := ladder[best]
	return Rung{}, Errorf(KindInvalidInput,
		`no candidate of communityLevel "auto" fits maxMapInputTokens %d: the smallest, level %s (%s), plans %d estimated map input tokens: raise maxMapInputTokens to at least %d`,
		ceiling, smallest.Level, Plural(smallest.Summaries, "summary", "summaries"), smallest.PlannedMapInputTokens, smallest.PlannedMapInputTokens)
}

// plannedTokens packs the summaries of in that the rung of level holds, as
// planWith packs a plan, and returns its estimated map input tokens. in is
// not changed: the rung's texts are sized and packed on a copy of its
// lists, over the same claims and chunks.
func (e *Engine) plannedTokens(in mapInputs, h *hierarchy, p Params, level Level) (int, error) {
	rung := mapInputs{claimsByLeaf: in.claimsByLeaf, chunkText: in.chunkText, chunkDoc: in.chunkDoc}
	for i, s := range in.selected {
		if h.holds(level, s) {
			rung.selected = append(rung.selected, s)
			rung.leavesOf = append(rung.leavesOf, in.leavesOf[i])
		}
	}
	if err := e.sizeMapTexts(p, &rung); err != nil {
		return 0, err
	}
	counter, err := e.counter(p)
	if err != nil {
		return 0, err
	}
	packed, err := pack(counter, e.prompts().Map, p, rung)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, b := range packed {
		total += b.Tokens
	}
	return total, nil
}
