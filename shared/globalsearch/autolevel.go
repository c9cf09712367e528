package globalsearch

import (
	"maps"
	"slices"
)

// Rung is one candidate of communityLevel "auto" (docs/contract.md#auto-level):
// Level is LeafLevel for every leaf, or L for the summaries at level L with
// the leaves above L (whose level is lower), which level L does not cover.
type Rung struct {
	Level          Level `json:"level"`
	Summaries      int   `json:"summaries"`
	MapInputTokens int   `json:"mapInputTokens"`
}

// LevelChoice is what communityLevel "auto" chose: the ladder of
// candidates, finest first, with the estimated tokens of each one's map
// texts, and the level of the finest that fits the ceiling.
type LevelChoice struct {
	MaxMapInputTokens int    `json:"maxMapInputTokens"`
	Ladder            []Rung `json:"ladder"`
	LevelUsed         Level  `json:"levelUsed"`
}

// holds says whether the rung of level takes s, a selectable summary.
func (h *hierarchy) holds(level Level, s *Summary) bool {
	leaf := h.isLeaf(s.ID)
	if level == LeafLevel {
		return leaf
	}
	return s.Level == int(level) || (leaf && s.Level < int(level))
}

// tally is how many summaries a group holds and their tokens.
type tally struct{ summaries, tokens int }

func (t tally) plus(o tally) tally { return tally{t.summaries + o.summaries, t.tokens + o.tokens} }

// ladder builds the candidates of docs/contract.md#auto-level, finest
// first, from the selectable summaries and the estimated tokens of each
// one's map text. Each summary is measured once, whatever the number of
// rungs that hold it: a rung's figures are its level's total plus the
// running total of the leaves above it. A level with no selectable summary
// makes no rung, and neither does a level whose rung is the leaf rung
// again (the deepest, when it holds only leaves and every deeper leaf).
// A rung with no summary is never a candidate.
func (h *hierarchy) ladder(selected []*Summary, tokens []int) []Rung {
	var leaves tally
	byLevel, leavesAt := map[int]tally{}, map[int]tally{}
	for i, s := range selected {
		t := tally{1, tokens[i]}
		byLevel[s.Level] = byLevel[s.Level].plus(t)
		if h.isLeaf(s.ID) {
			leavesAt[s.Level] = leavesAt[s.Level].plus(t)
			leaves = leaves.plus(t)
		}
	}
	levels := slices.Sorted(maps.Keys(byLevel))
	above := make([]tally, len(levels)) // leaves whose level is below levels[i]
	for i := 1; i < len(levels); i++ {
		above[i] = above[i-1].plus(leavesAt[levels[i-1]])
	}
	var out []Rung
	if leaves.summaries > 0 {
		out = append(out, Rung{Level: LeafLevel, Summaries: leaves.summaries, MapInputTokens: leaves.tokens})
	}
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		rung := byLevel[l].plus(above[i])
		if leavesAt[l] == byLevel[l] && rung.summaries == leaves.summaries {
			continue // only leaves, and all of them: the leaf rung
		}
		out = append(out, Rung{Level: Level(l), Summaries: rung.summaries, MapInputTokens: rung.tokens})
	}
	return out
}

// chooseRung is the finest rung within ceiling; none fits is invalid input
// naming the smallest (docs/contract.md#auto-level).
func chooseRung(ladder []Rung, ceiling int) (Rung, error) {
	for _, r := range ladder {
		if r.MapInputTokens <= ceiling {
			return r, nil
		}
	}
	smallest := slices.MinFunc(ladder, func(a, b Rung) int { return a.MapInputTokens - b.MapInputTokens })
	return Rung{}, Errorf(KindInvalidInput,
		`no candidate of communityLevel "auto" fits maxMapInputTokens %d: the smallest, level %s (%s), holds %d estimated map input tokens: raise maxMapInputTokens to at least %d`,
		ceiling, smallest.Level, Plural(smallest.Summaries, "summary", "summaries"), smallest.MapInputTokens, smallest.MapInputTokens)
}

// chooseLevel applies communityLevel "auto" to in, which holds every
// selectable summary with its claims and cited chunks read: it measures
// each map text once, builds the ladder, keeps the summaries of the chosen
// rung and the chunks they cite, and records the choice in plan. A
// namespace with nothing to select has no ladder and selects nothing, as
// a leaf search of it would.
func (in *mapInputs) chooseLevel(h *hierarchy, p Params, plan *Plan) error {
	if in.len() == 0 {
		return nil
	}
	w, memo := newWalkScratch(), newCountMemo()
	tokens := make([]int, in.len())
	for i := range in.selected {
		tokens[i] = in.mapTextCount(i, w, memo).Tokens()
	}
	ladder := h.ladder(in.selected, tokens)
	if len(ladder) == 0 {
		in.selected, in.leavesOf = nil, nil
		plan.SummaryCount, plan.Coverage.CommunitiesSelected = 0, 0
		plan.MissingChunks = in.keepCited()
		return nil
	}
	chosen, err := chooseRung(ladder, p.MaxMapInputTokens)
	if err != nil {
		return err
	}
	kept := 0
	for i, s := range in.selected {
		if h.holds(chosen.Level, s) {
			in.selected[kept], in.leavesOf[kept] = s, in.leavesOf[i]
			kept++
		}
	}
	clear(in.selected[kept:])
	clear(in.leavesOf[kept:])
	in.selected, in.leavesOf = in.selected[:kept], in.leavesOf[:kept]
	plan.MissingChunks = in.keepCited()
	plan.SummaryCount, plan.Coverage.CommunitiesSelected = kept, kept
	plan.AutoLevel = &LevelChoice{MaxMapInputTokens: p.MaxMapInputTokens, Ladder: ladder, LevelUsed: chosen.Level}
	return nil
}

// keepCited drops the chunks no selected map text cites, so coverage
// counts what the map input holds, and counts the cited ids that name no
// chunk, as readCited does.
func (in *mapInputs) keepCited() (missing int) {
	cited := in.citedIDs()
	keep := make(map[string]bool, len(cited))
	for _, id := range cited {
		keep[id] = true
		if _, ok := in.chunkText[id]; !ok {
			missing++
		}
	}
	maps.DeleteFunc(in.chunkText, func(id, _ string) bool { return !keep[id] })
	maps.DeleteFunc(in.chunkDoc, func(id, _ string) bool { return !keep[id] })
	return missing
}
