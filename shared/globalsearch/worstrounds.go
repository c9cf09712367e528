package globalsearch

import (
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// worstRounds is a tree reduce's rounds at their worst
// (docs/contract.md#worst-case): every batch useful and every answer at
// its output reserve, each intermediate answer citing every id its group
// saw. groups are the groups per intermediate round; none when one
// prompt holds every answer, or in single mode.
type worstRounds struct {
	groups []int
}

// calls is how many intermediate calls the rounds make, one attempt each.
func (w worstRounds) calls() int {
	n := 0
	for _, g := range w.groups {
		n += g
	}
	return n
}

// upFront is what plan sends before its ceilings hold it again, with a
// tree reduce's rounds at their worst (plan.upFront, worstRoundsOf).
func (e *Engine) upFront(plan Plan) sends {
	s := plan.upFront()
	if plan.Selection == nil && reduceModeOf(plan.Params) == ReduceModeTree {
		s.rounds = e.worstRoundsOf(plan)
	}
	return s
}

// worstRoundsOf replays the grouping of docs/contract.md#reduce-rounds in
// token counts: each candidate is its header (the ids it may cite) and
// its whole output reserve, each group the intermediate prompt's
// skeleton, its candidates and their separators. Counting each piece
// apart rounds each up, so the figure never falls below the run's.
func (e *Engine) worstRoundsOf(plan Plan) worstRounds {
	p := plan.Params
	c, err := e.counter(p)
	if err != nil {
		c = tokens.EstimateCounter
	}
	measure := func(s string) int { return c.Tokens(c.Of(s)) }
	budget := p.ReducePromptBudget()
	final := measure(e.prompts().Reduce.WithResponseType(p.ResponseType).Skeleton(p.Query))
	round := measure(e.prompts().Round.Skeleton(p.Query))
	sep := c.Tokens(tokens.Separator(c, candidateSeparator))
	type cand struct {
		ids  []string
		size int
	}
	// 100 is the longest usefulness a header prints.
	size := func(ids []string, reserve int) int {
		return measure(Candidate{Usefulness: 100, CommunityIDs: ids}.Render()) + reserve
	}
	if p.MapOutputReserve == 0 || p.ReduceOutputReserve == 0 {
		// No output limit: no answer's size is known, so no round is
		// counted, and the run itself starts no round whose calls could
		// pass maxModelCalls (treeLimits).
		return worstRounds{}
	}
	cands := make([]cand, len(plan.Batches))
	for i, b := range plan.Batches {
		cands[i] = cand{ids: b.CommunityIDs, size: size(b.CommunityIDs, p.MapOutputReserve)}
	}
	var w worstRounds
	for len(w.groups) < MaxReduceRound {
		total := final
		for i, k := range cands {
			total += k.size + min(i, 1)*sep
		}
		if total <= budget {
			return w
		}
		var next []cand
		var grown []int // the tokens each group holds so far
		for _, k := range cands {
			placed := false
			for g := range next {
				if grown[g]+sep+k.size <= budget {
					grown[g] += sep + k.size
					next[g].ids = append(next[g].ids, k.ids...)
					placed = true
					break
				}
			}
			if !placed && round+k.size <= budget {
				next, grown = append(next, cand{ids: append([]string(nil), k.ids...)}), append(grown, round+k.size)
			}
		}
		if len(next) == 0 || len(next) >= len(cands) {
			return w // another round would not shrink what the final call reads
		}
		for i := range next {
			next[i].size = size(dedupe(next[i].ids), p.ReduceOutputReserve)
		}
		w.groups = append(w.groups, len(next))
		cands = next
	}
	return w
}

// dedupe is ids without repeats, in first order.
func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// RoundsLine is how plan states a tree reduce's worst case
// (docs/contract.md#worst-case); "" without rounds.
func (w WorstCase) RoundsLine() string {
	if w.ReduceRounds == 0 {
		return ""
	}
	return fmt.Sprintf("reduce in rounds: at most %s, %s (%d input and %d output tokens at most)",
		Plural(w.ReduceRounds, "round", "rounds"), Plural(w.ReduceCalls, "reduce call", "reduce calls"),
		w.ReduceInputTokens, w.ReduceOutputTokens)
}
