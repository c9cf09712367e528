package globalsearch

import (
	"cmp"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// treeCandidate is one candidate of a reduce round
// (docs/contract.md#reduce-rounds): what the prompt shows, how many map
// answers it rests on and its rank among equal scores (the batch index in
// round 1, the index of the group that wrote it after).
type treeCandidate struct {
	Candidate
	answers int
	rank    int
}

// rankTree drops the candidates of usefulness 0 and orders the rest by
// usefulness descending, ties by rank: the order of SelectAnswers.
func rankTree(cands []treeCandidate) []treeCandidate {
	ranked := slices.DeleteFunc(slices.Clone(cands), func(c treeCandidate) bool { return c.Usefulness <= 0 })
	slices.SortStableFunc(ranked, func(a, b treeCandidate) int {
		return cmp.Or(cmp.Compare(b.Usefulness, a.Usefulness), cmp.Compare(a.rank, b.rank))
	})
	return ranked
}

// mapTreeCandidates are a run's map answers as round 1 ranks them.
func mapTreeCandidates(answers []MapAnswer) []treeCandidate {
	out := make([]treeCandidate, len(answers))
	for i, a := range answers {
		out[i] = treeCandidate{Candidate: NewCandidate(a), answers: 1, rank: a.BatchIndex}
	}
	return rankTree(out)
}

// fitter measures candidates against one prompt's skeleton and budget.
type fitter struct {
	prompt tokens.Prompt
	sep    tokens.Count
	budget int
}

func newFitter(c tokens.Counter, skeleton string, budget int) fitter {
	return fitter{prompt: tokens.NewPromptWith(c, skeleton), sep: tokens.Separator(c, candidateSeparator), budget: budget}
}

// sizes measures each candidate once, as the prompt shows it.
func (f fitter) sizes(cands []treeCandidate) []tokens.Count {
	out := make([]tokens.Count, len(cands))
	for i, c := range cands {
		out[i] = f.prompt.Counter().Of(c.Render())
	}
	return out
}

// fitsAll reports whether one prompt holds every candidate of sizes.
func (f fitter) fitsAll(sizes []tokens.Count) bool {
	var sum tokens.Count
	for i, s := range sizes {
		if i > 0 {
			sum = sum.Add(f.sep)
		}
		sum = sum.Add(s)
	}
	return f.prompt.Fits(sum, f.budget)
}

// groupTree splits ranked candidates into groups in rank order
// (docs/contract.md#reduce-rounds): the first group takes candidates by the
// skip-not-break rule over the whole list, the next the same over what is
// left, and so on. A candidate that fits no empty group is skipped; it
// returns the groups (each in rank order) and the skipped.
func (f fitter) groupTree(ranked []treeCandidate, sizes []tokens.Count) (groups [][]treeCandidate, skipped []treeCandidate) {
	left := make([]int, len(ranked))
	for i := range left {
		left[i] = i
	}
	for len(left) > 0 {
		var (
			group   []treeCandidate
			content tokens.Count
			rest    []int
		)
		for _, i := range left {
			grown := content.Add(sizes[i])
			if len(group) > 0 {
				grown = grown.Add(f.sep)
			}
			if !f.prompt.Fits(grown, f.budget) {
				rest = append(rest, i)
				continue
			}
			group, content = append(group, ranked[i]), grown
		}
		if len(group) == 0 {
			for _, i := range rest {
				skipped = append(skipped, ranked[i])
			}
			break
		}
		groups, left = append(groups, group), rest
	}
	return groups, skipped
}

// treeRound is one round of intermediate calls as a replay finds it.
type treeRound struct {
	groups  []ReduceGroup
	answers map[int]GroupAnswer // by group index; a group absent has none
}

// tree is a run's reduce rounds replayed from its map answers and group
// answers: the rounds run so far, then either the groups of the next
// round (next) or the candidates of the final call (final).
type tree struct {
	rounds []treeRound
	next   []ReduceGroup
	final  []treeCandidate
	// skipped counts the map answers that reached no reduce call: too
	// large for any group of round 1.
	skipped int
}

// treeLimits are what a replay holds the rounds to: the prompts and budget
// they are measured against, and, when ceiling is set, how many more calls
// the run may make, so that a round that could pass maxModelCalls is not
// started and the final call reads what one prompt holds.
type treeLimits struct {
	final, round fitter
	ceiling      bool
	callsLeft    int
}

// replayTree replays the rounds of a run (docs/contract.md#reduce-rounds).
// The grouping of every round follows from the answers before it, so each
// step recomputes it rather than trusting what an earlier step saved: a
// group with no answer done (every attempt failed, or lost) is a failed
// group, whose candidates reach no later round.
func replayTree(answers []MapAnswer, stored []GroupAnswer, l treeLimits) tree {
	byRound := map[int]map[int]GroupAnswer{}
	for _, a := range stored {
		if byRound[a.Round] == nil {
			byRound[a.Round] = map[int]GroupAnswer{}
		}
		byRound[a.Round][a.Index] = a
		l.callsLeft -= a.Calls
	}
	var t tree
	cands := mapTreeCandidates(answers)
	for round := 1; ; round++ {
		if l.final.fitsAll(l.final.sizes(cands)) || round > MaxReduceRound {
			t.final = cands
			return t
		}
		groups, skipped := l.round.groupTree(cands, l.round.sizes(cands))
		calls := (len(groups) + 1) * ReduceAttempts
		noProgress := !slices.ContainsFunc(groups, func(g []treeCandidate) bool { return len(g) > 1 })
		if noProgress || (byRound[round] == nil && l.ceiling && calls > l.callsLeft) {
			// Another round would not shrink what the final call reads, or
			// could pass the ceiling: the final call selects what fits.
			t.final = cands
			return t
		}
		if round == 1 {
			for _, c := range skipped {
				t.skipped += c.answers
			}
		}
		saved := make([]ReduceGroup, len(groups))
		for i, g := range groups {
			saved[i] = ReduceGroup{Round: round, Index: i, Candidates: make([]Candidate, len(g))}
			for j, c := range g {
				saved[i].Candidates[j] = c.Candidate
				saved[i].AnswerCount += c.answers
			}
		}
		done := byRound[round]
		if done == nil {
			t.next = saved
			return t
		}
		t.rounds = append(t.rounds, treeRound{groups: saved, answers: done})
		cands = nextCandidates(saved, done)
	}
}

// nextCandidates are the intermediate answers of a round's groups that
// succeeded, as the next round ranks them.
func nextCandidates(groups []ReduceGroup, done map[int]GroupAnswer) []treeCandidate {
	var out []treeCandidate
	for i, g := range groups {
		a, ok := done[i]
		if !ok || !a.Done {
			continue
		}
		ids := a.CitedCommunityIDs
		if len(ids) == 0 {
			ids = groupIDs(g)
		}
		out = append(out, treeCandidate{
			Candidate: Candidate{Usefulness: a.Usefulness, CommunityIDs: ids, Answer: NeutraliseHeaders(a.Answer)},
			answers:   g.AnswerCount, rank: i,
		})
	}
	return rankTree(out)
}

// groupIDs are the ids a group's candidates name, in first-named order:
// the ids its intermediate answer may cite.
func groupIDs(g ReduceGroup) []string {
	var ids []string
	seen := map[string]bool{}
	for _, c := range g.Candidates {
		for _, id := range c.CommunityIDs {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// groupScore is a group answer's score for the next round: the highest
// usefulness of its candidates (docs/contract.md#reduce-rounds).
func groupScore(g ReduceGroup) float64 {
	top := 0.0
	for _, c := range g.Candidates {
		top = max(top, c.Usefulness)
	}
	return top
}

// groupContent is the content of a group's prompt: its candidates as the
// reduce prompt shows them.
func groupContent(g ReduceGroup) string {
	texts := make([]string, len(g.Candidates))
	for i, c := range g.Candidates {
		texts[i] = c.Render()
	}
	return strings.Join(texts, candidateSeparator)
}
