package globalsearch

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Coverage is how much of the namespace a plan or an answer rests on, and
// what was cut on the way (docs/contract.md#coverage). Prepare counts the
// map input and the plan keeps it; reduce adds the map answers and what
// the answer cites. All of it comes from what the run already holds: no
// read of the index past prepare, no model call.
type Coverage struct {
	CommunitiesSelected    int `json:"communitiesSelected"`
	CommunitiesInNamespace int `json:"communitiesInNamespace"`
	Claims                 int `json:"claims"`
	Excerpts               int `json:"excerpts"`
	Documents              int `json:"documents"`
	// MapAnswers is nil in a plan, which has no answer yet; a result
	// always has it.
	MapAnswers       *MapAnswerCoverage `json:"mapAnswers,omitempty"`
	CitedCommunities int                `json:"citedCommunities"`
	CitedDocuments   int                `json:"citedDocuments"`
}

// MapAnswerCoverage counts a run's map batches by what became of them:
// Useful + ScoredZero + Failed is every batch, and ReachedReduce +
// SkippedForBudget is every useful one.
type MapAnswerCoverage struct {
	Useful           int `json:"useful"`
	ReachedReduce    int `json:"reachedReduce"`
	SkippedForBudget int `json:"skippedForBudget"`
	ScoredZero       int `json:"scoredZero"`
	Failed           int `json:"failed"`
	// InRounds says the answers were reduced in rounds
	// (docs/contract.md#reduce-rounds); absent for one reduce call.
	InRounds bool `json:"inRounds,omitempty"`
}

// MarshalJSON leaves out the cited counts of a plan's coverage, which has
// no answer to cite anything: a 0 there would read as "cites nothing".
func (c Coverage) MarshalJSON() ([]byte, error) {
	type plain Coverage
	if c.MapAnswers != nil {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		CitedCommunities *int `json:"citedCommunities,omitempty"`
		CitedDocuments   *int `json:"citedDocuments,omitempty"`
	}{plain: plain(c)})
}

// Line is the coverage as one line a person reads, as `run` and `plan`
// print it.
func (c Coverage) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "coverage: %d of %s, %s, %s", c.CommunitiesSelected,
		counted(c.CommunitiesInNamespace, "community", "communities"),
		counted(c.Claims, "claim", "claims"), counted(c.Excerpts, "excerpt", "excerpts"))
	switch {
	case c.Documents > 0:
		fmt.Fprintf(&b, " from %s", counted(c.Documents, "document", "documents"))
	case c.Excerpts > 0:
		b.WriteString(" (the index names no documents)")
	}
	m := c.MapAnswers
	if m == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "; %s: %d useful, %d reached reduce, %d skipped for the reduce budget, %d scored 0, %d failed",
		counted(m.Useful+m.ScoredZero+m.Failed, "map answer", "map answers"),
		m.Useful, m.ReachedReduce, m.SkippedForBudget, m.ScoredZero, m.Failed)
	switch {
	case c.CitedCommunities == 0:
		b.WriteString("; the answer cites no community")
	case c.CitedDocuments > 0:
		fmt.Fprintf(&b, "; the answer cites %s in %s", counted(c.CitedCommunities, "community", "communities"),
			counted(c.CitedDocuments, "document", "documents"))
	default:
		fmt.Fprintf(&b, "; the answer cites %s", counted(c.CitedCommunities, "community", "communities"))
	}
	return b.String()
}

// LineWithReduceHint is Line followed, when one reduce call skipped
// useful answers for its budget, by how many and that a reduce in rounds
// would keep them (docs/contract.md#reduce-rounds), as `run` prints it.
func (c Coverage) LineWithReduceHint() string {
	m := c.MapAnswers
	if m == nil || m.SkippedForBudget == 0 || m.InRounds {
		return c.Line()
	}
	return c.Line() + fmt.Sprintf("; --reduce-mode tree would keep the %s skipped for the reduce budget",
		counted(m.SkippedForBudget, "useful answer", "useful answers"))
}

// counted is n with the noun in its number.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// mapCoverage counts the answers and failures of a run's map stage;
// selected is how many answers the reduce prompt held.
func mapCoverage(answers []MapAnswer, failed, selected int) *MapAnswerCoverage {
	m := &MapAnswerCoverage{Failed: failed, ReachedReduce: selected}
	for _, a := range answers {
		if a.Usefulness > 0 {
			m.Useful++
		} else {
			m.ScoredZero++
		}
	}
	m.SkippedForBudget = m.Useful - selected
	return m
}

// citedCoverage counts the communities an answer's citations name and
// the distinct documents of their chunks.
func citedCoverage(cited []Citation) (communities, documents int) {
	docs := map[string]bool{}
	for _, c := range cited {
		for _, d := range c.DocumentIDs {
			docs[d] = true
		}
	}
	return len(cited), len(docs)
}
