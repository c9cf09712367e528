package globalsearch

import (
	"maps"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// Rung is one candidate of communityLevel "auto" (docs/contract.md#auto-level):
// Level is LeafLevel for every leaf, or GraphRAGLevel(L), the summaries at
// level L with the leaves above L (whose level is lower), which level L
// does not cover: GraphRAG's community level L, which a request can name.
type Rung struct {
	Level          Level `json:"level"`
	Summaries      int   `json:"summaries"`
	MapInputTokens int   `json:"mapInputTokens"`
	// PlannedMapInputTokens is the estimated map input of the rung's plan,
	// packing included, for the rungs auto packed to find the one that fits
	// (docs/contract.md#auto-level); 0 for the others.
	PlannedMapInputTokens int `json:"plannedMapInputTokens,omitempty"`
}

// LevelChoice is what communityLevel "auto" chose: the ladder of
// candidates, finest first, with the estimated tokens of each one's map
// texts, and the level of the finest that fits the ceiling.
type LevelChoice struct {
	MaxMapInputTokens int    `json:"maxMapInputTokens"`
	Ladder            []Rung `json:"ladder"`
	LevelUsed         Level  `json:"levelUsed"`
}

// holds says whether level selects s, a selectable summary: every leaf,
// the summaries of one level, or GraphRAG's community level n, the
// summaries of level n and the leaves of the coarser levels
// (docs/contract.md#graphrag-level), which are also the rungs of
// docs/contract.md#auto-level.
func (h *hierarchy) holds(level Level, s *Summary) bool {
	if level == LeafLevel {
		return h.isLeaf(s.ID)
	}
	if level >= 0 {
		return s.Level == int(level)
	}
	n, ok := level.GraphRAG()
	return ok && (s.Level == n || (s.Level < n && h.isLeaf(s.ID)))
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
		out = append(out, Rung{Level: GraphRAGLevel(l), Summaries: rung.summaries, MapInputTokens: rung.tokens})
	}
	return out
}

// chooseLevel applies communityLevel "auto" to in, which holds every
// selectable summary with its claims and cited chunks read: it measures
// each map text once, builds the ladder, keeps the summaries of the chosen
// rung and the chunks they cite, and records the choice in plan. A
// namespace with nothing to select has no ladder and selects nothing, as
// a leaf search of it would.
func (e *Engine) chooseLevel(in *mapInputs, h *hierarchy, spans leafSpans, p Params, plan *Plan) error {
	if in.len() == 0 {
		return nil
	}
	counts := in.mapTextCounts(spans)
	tokens := make([]int, in.len())
	for i, c := range counts {
		tokens[i] = c.Tokens()
	}
	ladder := h.ladder(in.selected, tokens)
	if len(ladder) == 0 {
		in.selected, in.leavesOf = nil, nil
		plan.SummaryCount, plan.Coverage.CommunitiesSelected = 0, 0
		plan.MissingChunks = in.keepCited()
		return nil
	}
	chosen, err := chooseRung(ladder, p.MaxMapInputTokens, func(l Level) (int, error) { return e.plannedTokens(*in, h, p, l) })
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
	maps.DeleteFunc(in.chunkUnit, func(id, _ string) bool { return !keep[id] })
	return missing
}

// mapTextCounts is the code point count of every selected summary's map
// text (what mapText would write, docs/contract.md#map-text), computed for
// all of them at once in time linear in the summaries, leaves, claims and
// citations (up to a logarithm for the excerpts). Walking each text would
// cost every summary its whole subtree again: a chain of n summaries over
// one leaf walked that leaf n times (docs/contract.md#auto-level).
//
// A summary's descendant leaves are one run [from, to) of spans.leaves, so
// its claim lines are a difference of running totals over that order. Its
// excerpts are the distinct existing chunks those claims cite, each once
// per text: the distinct chunks of a run, which one left-to-right pass
// answers for every run at once, keeping each chunk counted only at its
// latest citing leaf (a Fenwick tree over the leaves) and reading each run
// when the pass reaches its end.
func (in *mapInputs) mapTextCounts(spans leafSpans) []tokens.Count {
	n := len(spans.leaves)
	claimsBefore := make([]lineTotal, n+1) // claim lines of leaves [0, i)
	for i, leaf := range spans.leaves {
		t := claimsBefore[i]
		for _, c := range in.claimsByLeaf[leaf] {
			claimPieces(c, func(s string) { t.count = t.count.Add(tokens.Of(s)) })
			t.lines++
		}
		claimsBefore[i+1] = t
	}
	// The runs that end at each leaf, so the pass reads each in turn.
	endingAt := make([][]int, n)
	for i, s := range in.selected {
		sp := spans.span[s.ID]
		endingAt[sp[1]-1] = append(endingAt[sp[1]-1], i)
	}
	excerpts := make([]lineTotal, len(in.selected))
	tree := make(fenwick, n+1)
	last := map[string]int{}          // the latest leaf citing each chunk
	line := map[string]tokens.Count{} // each chunk's excerpt line
	for at, leaf := range spans.leaves {
		for _, c := range in.claimsByLeaf[leaf] {
			for _, id := range c.SourceChunkIDs {
				text, ok := in.chunkText[id]
				if !ok {
					continue
				}
				prev, seen := last[id]
				if seen && prev == at {
					continue
				}
				l, ok := line[id]
				if !ok {
					excerptPieces(excerpt{id, text}, func(s string) { l = l.Add(tokens.Of(s)) })
					line[id] = l
				}
				if seen {
					tree.add(prev, lineTotal{count: negate(l), lines: -1})
				}
				tree.add(at, lineTotal{count: l, lines: 1})
				last[id] = at
			}
		}
		for _, i := range endingAt[at] {
			from := spans.span[in.selected[i].ID][0]
			excerpts[i] = tree.sum(at + 1).minus(tree.sum(from))
		}
	}
	out := make([]tokens.Count, len(in.selected))
	for i, s := range in.selected {
		sp := spans.span[s.ID]
		c := tokens.Of(summaryHeader).Add(tokens.Of(s.Summary))
		if claims := claimsBefore[sp[1]].minus(claimsBefore[sp[0]]); claims.lines > 0 {
			c = c.Add(tokens.Of(claimsHeader)).Add(claims.count)
		}
		if excerpts[i].lines > 0 {
			c = c.Add(tokens.Of(excerptsHeader)).Add(excerpts[i].count)
		}
		out[i] = c
	}
	return out
}

// lineTotal is the lines of a map text's section and their count.
type lineTotal struct {
	count tokens.Count
	lines int
}

func (t lineTotal) plus(o lineTotal) lineTotal {
	return lineTotal{t.count.Add(o.count), t.lines + o.lines}
}

func (t lineTotal) minus(o lineTotal) lineTotal {
	return t.plus(lineTotal{negate(o.count), -o.lines})
}

func negate(c tokens.Count) tokens.Count {
	return tokens.Count{ASCII: -c.ASCII, NonASCII: -c.NonASCII, Exact: -c.Exact}
}

// fenwick sums lineTotals over a prefix of positions in logarithmic time.
type fenwick []lineTotal

func (f fenwick) add(at int, v lineTotal) {
	for i := at + 1; i < len(f); i += i & -i {
		f[i] = f[i].plus(v)
	}
}

// sum is the total of positions [0, to).
func (f fenwick) sum(to int) lineTotal {
	var t lineTotal
	for i := to; i > 0; i -= i & -i {
		t = t.plus(f[i])
	}
	return t
}
