package offline

import (
	"strings"
)

// unit is one sentence of an answer as it is written, its citation mark
// included, with the group (the candidate) it came from: a paragraph holds
// one group's sentences.
type unit struct {
	text  string
	group int
}

// layout is the form of an answer (docs/contract.md#offline-model).
type layout int

const (
	paragraphs   layout = iota // the default: a paragraph per group of sentences
	oneParagraph               // every sentence in one paragraph
	bulleted                   // a bulleted list, a sentence an item
	oneSentence                // the first sentence alone
)

// layoutOf reads a free-text response type (docs/contract.md#request) the
// way a reader would: a list or bullet points, one paragraph (or line), one
// sentence; anything else ("multiple paragraphs", "a report") is paragraphs.
func layoutOf(responseType string) layout {
	rt := strings.ToLower(responseType)
	one := strings.Contains(rt, "single") || strings.Contains(rt, "one ")
	switch {
	case strings.Contains(rt, "list") || strings.Contains(rt, "bullet") || strings.Contains(rt, "points"):
		return bulleted
	case one && strings.Contains(rt, "sentence"):
		return oneSentence
	case one && (strings.Contains(rt, "paragraph") || strings.Contains(rt, "line")):
		return oneParagraph
	}
	return paragraphs
}

// Paragraphs hold between minParagraph and maxParagraph sentences where
// the answer has enough of them: a paragraph of one sentence is a list
// item, one of many a wall.
const (
	minParagraph = 2
	maxParagraph = 4
)

// join writes units in the layout: units of one group stay together, in
// the order the groups first appear, so a paragraph tells one candidate's
// part of the answer.
func (l layout) join(units []unit) string {
	if l == oneSentence {
		units = units[:min(len(units), 1)]
	}
	grouped := groupUnits(units)
	texts := make([]string, len(grouped))
	for i, u := range grouped {
		texts[i] = u.text
	}
	switch l {
	case bulleted:
		return "- " + strings.Join(texts, "\n- ")
	case paragraphs:
		var b strings.Builder
		inPara := 0
		for i, u := range grouped {
			if i > 0 {
				if inPara >= maxParagraph || inPara >= minParagraph && u.group != grouped[i-1].group {
					b.WriteString("\n\n")
					inPara = 0
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(u.text)
			inPara++
		}
		return b.String()
	}
	return strings.Join(texts, " ")
}

// groupUnits orders units by the first appearance of their group, keeping
// their order within a group.
func groupUnits(units []unit) []unit {
	rank := map[int]int{}
	var groups []int
	for _, u := range units {
		if _, ok := rank[u.group]; !ok {
			rank[u.group] = len(groups)
			groups = append(groups, u.group)
		}
	}
	byGroup := make([][]unit, len(groups))
	for _, u := range units {
		byGroup[rank[u.group]] = append(byGroup[rank[u.group]], u)
	}
	out := make([]unit, 0, len(units))
	for _, g := range byGroup {
		out = append(out, g...)
	}
	return out
}
