package offline

import (
	"cmp"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

const (
	// reduceSentences caps the merged answer.
	reduceSentences = 12
	// reduceFloor leaves out the candidates whose usefulness is below this
	// share of the best one's: usefulness follows match strength, and a
	// weak answer beside a strong one is noise.
	reduceFloor = 0.3
	// maxMarkIDs caps the communities one sentence cites when several
	// candidates said it: enough to show it is shared, few enough to check.
	maxMarkIDs = 3
)

// cited is a sentence of a candidate with the communities it cites.
type cited struct {
	text  string
	whole bool
	ids   []string
}

// candidate is one map answer cut into its cited sentences.
type candidate struct {
	usefulness float64
	sentences  []cited
}

// citedSentences cuts a map answer into sentences, each citing the ids of
// the mark that follows it; a sentence no mark follows cites fallback (the
// candidate's communities), as a map answer of a model that cites nothing.
func citedSentences(answer string, fallback []string) []cited {
	var out []cited
	add := func(text string, ids []string) {
		sents, _ := appendText(nil, globalsearch.MapPart{Text: text}, sectionOther)
		for _, s := range sents {
			out = append(out, cited{text: s.text, whole: s.whole, ids: ids})
		}
	}
	// The marks as the engine reads them (docs/contract.md#citation-marks):
	// either form, so that a cached answer of the older form merges too.
	from := 0
	for _, m := range globalsearch.MarkSpans(answer) {
		ids := make([]string, len(m.IDs))
		for i, id := range m.IDs {
			ids[i] = id.ID
		}
		add(answer[from:m.Start], ids)
		from = m.End
	}
	add(answer[from:], fallback)
	return out
}

// reduceAnswer implements the reduce stage (see the package comment).
func reduceAnswer(given []globalsearch.Candidate, l layout, maxTokens int) (string, bool, error) {
	cands := make([]candidate, 0, len(given))
	top := 0.0
	for _, c := range given {
		top = max(top, c.Usefulness)
	}
	for _, c := range given {
		if c.Usefulness >= reduceFloor*top {
			cands = append(cands, candidate{usefulness: c.Usefulness, sentences: citedSentences(c.Answer, c.CommunityIDs)})
		}
	}
	slices.SortStableFunc(cands, func(x, y candidate) int { return cmp.Compare(y.usefulness, x.usefulness) })

	units := merge(cands, true)
	if len(units) == 0 {
		// A map answer cut short to fit its reserve is all there is: a
		// fragment answers better than nothing.
		units = merge(cands, false)
	}
	return fit(maxTokens, units, l, func(answer string) any { return reduceOutput{Answer: answer} })
}

// merge takes the first sentence of each candidate, then the second of
// each, and so on, up to reduceSentences, of the whole sentences or of the
// fragments. A sentence the answer already says is not said again: its
// communities join the mark of the one said, up to maxMarkIDs.
func merge(cands []candidate, whole bool) []unit {
	type merged struct {
		text  string
		ids   []string
		group int
	}
	var out []merged
	var said sentenceSet
	for round := 0; len(out) < reduceSentences; round++ {
		took := false
		for g, c := range cands {
			sents := slices.DeleteFunc(slices.Clone(c.sentences), func(s cited) bool { return s.whole != whole })
			if round >= len(sents) || len(out) == reduceSentences {
				continue
			}
			took = true
			s := sents[round]
			if at, ok := said.addAt(s.text); ok {
				out = append(out, merged{text: s.text, ids: slices.Clone(s.ids), group: g})
			} else if at >= 0 {
				for _, id := range s.ids {
					if len(out[at].ids) < maxMarkIDs && !slices.Contains(out[at].ids, id) {
						out[at].ids = append(out[at].ids, id)
					}
				}
			}
		}
		if !took {
			break
		}
	}
	units := make([]unit, len(out))
	for i, m := range out {
		units[i] = unit{text: withMark(strings.TrimSpace(m.text), m.ids), group: m.group}
	}
	return units
}
