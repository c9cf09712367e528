package globalsearch

import (
	"regexp"
	"strings"
	"unicode"
)

// Sources are what one community's map text was built from (docs/contract.md#map-text):
// the claims collected from its descendant leaves and the source chunks
// they cite that exist, both in map-text order. Prepare records them with
// each batch, so a cited community can be traced without reading the index.
type Sources struct {
	CommunityID string   `json:"communityId"`
	ClaimIDs    []string `json:"claimIds"`
	ChunkIDs    []string `json:"chunkIds"`
	// DocumentIDs are the distinct documents of those chunks, in
	// first-cited order; a chunk with no document id adds none
	// (docs/contract.md#coverage).
	DocumentIDs []string `json:"documentIds,omitempty"`
	// TextUnitIDs are the distinct GraphRAG text units those chunks were
	// cut from (Chunk.TextUnitID), in first-cited order: the ids
	// text_units.parquet knows, where an excerpt's chunk id is the
	// import's own (docs/contract.md#citations).
	TextUnitIDs []string `json:"textUnitIds,omitempty"`
	// Truncated says the lists stop short: the community's claims and
	// chunks held more ids than a plan records (maxSourceBytes).
	Truncated bool `json:"truncated,omitempty"`
}

// maxSourceBytes bounds the id bytes one batch records, so a batch item
// stays well inside DynamoDB's 400 KB beside its content.
const maxSourceBytes = 64 << 10

// within returns s with as many ids as fit in room bytes (documents
// first, which coverage counts and which are few, then claims, then
// chunks) and the room left.
func (s Sources) within(room int) (Sources, int) {
	take := func(ids []string) []string {
		kept := []string{}
		for _, id := range ids {
			if len(id) > room {
				s.Truncated = true
				break
			}
			room -= len(id)
			kept = append(kept, id)
		}
		return kept
	}
	if s.DocumentIDs != nil {
		s.DocumentIDs = take(s.DocumentIDs)
	}
	if s.TextUnitIDs != nil && !s.Truncated {
		s.TextUnitIDs = take(s.TextUnitIDs)
	}
	if s.Truncated {
		s.ClaimIDs, s.ChunkIDs = []string{}, []string{}
		return s, room
	}
	s.ClaimIDs = take(s.ClaimIDs)
	if s.Truncated {
		s.ChunkIDs = []string{}
		return s, room
	}
	s.ChunkIDs = take(s.ChunkIDs)
	return s, room
}

// Citation is one community the final answer cites (docs/contract.md#citations), with the
// claims and chunks its map text held.
type Citation = Sources

// citationMark finds "[Data: Reports (<ids>)]", the form GraphRAG's own
// global search prompts ask for and the embedded prompts ask for, and
// "[Data: Communities (<ids>)]", the form they asked for before
// (docs/contract.md#citation-marks), so that cached answers, stored results
// and custom prompts of either form are read alike. Ids never hold "]"
// (docs/contract.md#ids), so ")]" ends the list; the model may write
// "Report" or "Community" or vary spacing and case, and may end the list
// with "+more" as GraphRAG's prompts teach.
var citationMark = regexp.MustCompile(`(?i)\[\s*Data\s*:\s*(Reports?|Communit(?:y|ies))\s*\((.*?)\)\s*\]`)

// mark is one citation mark of an answer.
type mark struct {
	start, end int      // the mark's bytes in the answer
	kind       string   // "Reports", "communities", ...: the word as written
	ids        []string // as written, trimmed, without blanks and "+more"
	at         [][2]int // each of ids' bytes in the answer
	more       bool     // the list ends with "+more": more ids apply than it names
}

// findMarks is the one reading of citation marks (docs/contract.md#citation-marks): map
// validation, the reduce candidate's header and the result's citations all
// see the same ids. Ids are split at commas and trimmed, so an id that
// itself holds a comma cannot be cited.
func findMarks(answer string) []mark {
	var marks []mark
	for _, loc := range citationMark.FindAllStringSubmatchIndex(answer, -1) {
		m := mark{start: loc[0], end: loc[1], kind: answer[loc[2]:loc[3]]}
		from := loc[4]
		for piece := range strings.SplitSeq(answer[loc[4]:loc[5]], ",") {
			id := strings.TrimSpace(piece)
			start := from + len(piece) - len(strings.TrimLeftFunc(piece, unicode.IsSpace))
			from += len(piece) + 1
			switch {
			case isMore(id):
				m.more = true
			case id != "":
				m.ids = append(m.ids, id)
				m.at = append(m.at, [2]int{start, start + len(id)})
			}
		}
		marks = append(marks, m)
	}
	return marks
}

// isMore reads "+more" in any letter case, with or without a blank after
// the plus.
func isMore(id string) bool {
	rest, ok := strings.CutPrefix(id, "+")
	return ok && strings.EqualFold(strings.TrimSpace(rest), "more")
}

// ParseCitations returns the community ids an answer cites, in first-cited
// order without duplicates.
func ParseCitations(answer string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, m := range findMarks(answer) {
		for _, id := range m.ids {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// MarkSpan is one citation mark of an answer as a reader of the result
// finds it (docs/contract.md#citation-spans): the mark's bytes in the
// answer and each id in it with its own, so that a page can link the ids
// without reading marks a second way.
type MarkSpan struct {
	Start int      `json:"start"`
	End   int      `json:"end"`
	IDs   []SpanID `json:"ids"`
	More  bool     `json:"more,omitempty"`
}

// SpanID is one id of a mark and its bytes in the answer.
type SpanID struct {
	ID    string `json:"id"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// MarkSpans are the citation marks of answer, in order, as findMarks
// reads them; never nil, so that JSON reads [] for an answer with none.
func MarkSpans(answer string) []MarkSpan {
	spans := []MarkSpan{}
	for _, m := range findMarks(answer) {
		s := MarkSpan{Start: m.start, End: m.end, IDs: []SpanID{}, More: m.more}
		for i, id := range m.ids {
			s.IDs = append(s.IDs, SpanID{ID: id, Start: m.at[i][0], End: m.at[i][1]})
		}
		spans = append(spans, s)
	}
	return spans
}

// CitationMark is how an answer cites communities, as the embedded prompts
// ask for it and GraphRAG writes it (docs/contract.md#citation-marks).
func CitationMark(ids []string) string {
	return citationMarkOf("Reports", ids)
}

// citationMarkOf is a mark of kind ("Reports", "Communities", or the word
// as a model wrote it) citing ids.
func citationMarkOf(kind string, ids []string) string {
	return "[Data: " + kind + " (" + strings.Join(ids, ", ") + ")]"
}

// CiteWithin holds a map answer's marks to its batch (docs/contract.md#citation-marks): an
// id that is not one of batchIDs (invented, mistyped, or taken from the
// data's own text) is dropped from its mark, and a mark left with no id is
// removed with the blanks before it. A mark that loses nothing is kept as
// written. It returns the answer so rewritten, the ids it cites (first-cited
// order, no duplicates; nil for none) and how many ids it dropped.
func CiteWithin(answer string, batchIDs []string) (string, []string, int) {
	marks := findMarks(answer)
	if len(marks) == 0 {
		return answer, nil, 0
	}
	inBatch := make(map[string]bool, len(batchIDs))
	for _, id := range batchIDs {
		inBatch[id] = true
	}
	var b strings.Builder
	var cited []string
	seen, dropped, from := map[string]bool{}, 0, 0
	for _, m := range marks {
		kept := make([]string, 0, len(m.ids))
		for _, id := range m.ids {
			if !inBatch[id] {
				dropped++
				continue
			}
			kept = append(kept, id)
			if !seen[id] {
				seen[id] = true
				cited = append(cited, id)
			}
		}
		switch {
		case len(kept) == len(m.ids) && len(kept) > 0:
			b.WriteString(answer[from:m.end])
		case len(kept) == 0:
			b.WriteString(strings.TrimRight(answer[from:m.start], " \t"))
		default:
			if m.more {
				kept = append(kept, "+more")
			}
			// The rewrite keeps the form the model wrote: a custom prompt
			// that asks for "Communities" gets back what it asked for.
			b.WriteString(answer[from:m.start])
			b.WriteString(citationMarkOf(m.kind, kept))
		}
		from = m.end
	}
	b.WriteString(answer[from:])
	return b.String(), cited, dropped
}

// citations resolves the ids answer cites against the headers of the
// selected map answers (docs/contract.md#citations): an id that is in one of them becomes a citation with the
// sources the plan recorded; any other id is dropped and counted.
func citations(answer string, selected []MapAnswer, batches []Batch) ([]Citation, int) {
	inSelected := map[string]bool{}
	for _, a := range selected {
		// The ids the reduce prompt showed: the candidate's header.
		for _, id := range NewCandidate(a).CommunityIDs {
			inSelected[id] = true
		}
	}
	sources := map[string]Sources{}
	for _, b := range batches {
		for _, s := range b.Sources {
			if inSelected[s.CommunityID] {
				sources[s.CommunityID] = s
			}
		}
	}
	out := []Citation{}
	invalid := 0
	for _, id := range ParseCitations(answer) {
		if !inSelected[id] {
			invalid++
			continue
		}
		s, ok := sources[id]
		if !ok {
			// A plan saved before sources were recorded: the community is
			// still a valid citation, only untraceable.
			s = Sources{CommunityID: id}
		}
		if s.ClaimIDs == nil {
			s.ClaimIDs = []string{}
		}
		if s.ChunkIDs == nil {
			s.ChunkIDs = []string{}
		}
		out = append(out, s)
	}
	return out, invalid
}
