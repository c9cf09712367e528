package globalsearch

import (
	"iter"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

// Section markers of a map text (docs/contract.md#map-text).
const (
	summaryHeader  = "[Community summary]\n"
	claimsHeader   = "\n\n[Supporting claims]"
	excerptsHeader = "\n\n[Source excerpts]"
)

// mapInputs is what the map texts of the selected summaries are built
// from, in id order. A text is built only when the packer draws it: all of
// them at once would be as large as all the batches (docs/contract.md#plan-limits).
type mapInputs struct {
	selected     []*Summary
	leavesOf     [][]string // the descendant leaves of each selected summary
	claimsByLeaf map[string][]*Claim
	chunkText    map[string]string
	chunkDoc     map[string]string // the document of each chunk that names one
	chunkUnit    map[string]string // the text unit of each chunk that names one
	sizes        []int             // the exact length of each map text, once sized
}

func (m mapInputs) len() int { return len(m.selected) }

// excerpt is a cited chunk as a map text writes it.
type excerpt struct{ id, text string }

// walkScratch is the space a walk of one map text reuses. One walk runs at
// a time over it, so every map text of a plan shares one.
type walkScratch struct {
	seen  map[string]bool
	fresh []excerpt // the chunks the current claim cites first
	cited []excerpt // a text's chunks, kept by mapText until its claims are written
}

func newWalkScratch() *walkScratch { return &walkScratch{seen: map[string]bool{}} }

// claims yields the claims of summary i's map text in their order
// (docs/contract.md#map-text): the claims of its descendant leaves, leaf by
// leaf, each leaf's by id.
func (m mapInputs) claims(i int) iter.Seq[*Claim] {
	return func(yield func(*Claim) bool) {
		for _, leaf := range m.leavesOf[i] {
			for _, c := range m.claimsByLeaf[leaf] {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// walk yields the claims of summary i's map text in order, each with the
// chunks it is the first of them to cite that exist. It is the one
// reading of docs/contract.md#map-text: mapText writes, mapTextSize counts
// and sources records what it yields, so they cannot disagree on order or
// on a chunk cited twice (once per map text, however many of its claims
// cite it). The yielded slice is w's and valid until the next step.
func (m mapInputs) walk(i int, w *walkScratch) iter.Seq2[*Claim, []excerpt] {
	return func(yield func(*Claim, []excerpt) bool) {
		clear(w.seen)
		for c := range m.claims(i) {
			w.fresh = w.fresh[:0]
			for _, id := range c.SourceChunkIDs {
				if text, ok := m.chunkText[id]; ok && !w.seen[id] {
					w.seen[id] = true
					w.fresh = append(w.fresh, excerpt{id, text})
				}
			}
			if !yield(c, w.fresh) {
				return
			}
		}
	}
}

// items builds the map texts of the summaries at the given indexes, in
// that order, one per item drawn.
func (m mapInputs) items(order []int) iter.Seq[batch.Item] {
	return m.keyedItems(order, nil)
}

// keyedItems is items, each with its stable key (stableKeys) when keys
// holds them.
func (m mapInputs) keyedItems(order []int, keys []string) iter.Seq[batch.Item] {
	return func(yield func(batch.Item) bool) {
		w := newWalkScratch()
		for _, i := range order {
			it := batch.Item{ID: m.selected[i].ID, Text: m.mapText(i, w)}
			if keys != nil {
				it.Key = keys[i]
			}
			if !yield(it) {
				return
			}
		}
	}
}

// mapText renders summary i with its claims and excerpts
// (docs/contract.md#map-text) in one allocation of its size.
func (m mapInputs) mapText(i int, w *walkScratch) string {
	var b strings.Builder
	b.Grow(m.sizes[i])
	b.WriteString(summaryHeader)
	b.WriteString(m.selected[i].Summary)
	w.cited = w.cited[:0]
	first := true
	for c, fresh := range m.walk(i, w) {
		if first {
			b.WriteString(claimsHeader)
			first = false
		}
		b.WriteString("\n- ")
		b.WriteString(c.Subject)
		if c.Object != "" {
			b.WriteString(" -> ")
			b.WriteString(c.Object)
		}
		b.WriteString(": ")
		b.WriteString(c.Description)
		w.cited = append(w.cited, fresh...)
	}
	if len(w.cited) > 0 {
		b.WriteString(excerptsHeader)
		for _, x := range w.cited {
			b.WriteString("\n- (")
			b.WriteString(x.id)
			b.WriteString(") ")
			b.WriteString(x.text)
		}
	}
	clear(w.cited) // the texts are written: hold none of them past this text
	return b.String()
}

// mapTextSize is the exact length of mapText's result, computed without
// building it.
func (m mapInputs) mapTextSize(i int, w *walkScratch) int {
	size := 0
	m.pieces(i, w, func(s string) { size += len(s) })
	return size
}

// pieces hands emit every string mapText writes for summary i, though not
// in its order (each excerpt comes with its claim), so a measure that adds
// up cannot disagree with the text.
func (m mapInputs) pieces(i int, w *walkScratch, emit func(string)) {
	m.layout(i, w, emit, func(c *Claim) { claimPieces(c, emit) }, func(x excerpt) { excerptPieces(x, emit) })
}

// layout hands the parts of summary i's map text to the sinks: the headers
// and the summary to emit, each claim line to claim and each excerpt line
// to chunk.
func (m mapInputs) layout(i int, w *walkScratch, emit func(string), claim func(*Claim), chunk func(excerpt)) {
	emit(summaryHeader)
	emit(m.selected[i].Summary)
	claims, chunks := 0, 0
	for c, fresh := range m.walk(i, w) {
		claims++
		claim(c)
		for _, x := range fresh {
			chunks++
			chunk(x)
		}
	}
	if claims > 0 {
		emit(claimsHeader)
	}
	if chunks > 0 {
		emit(excerptsHeader)
	}
}

// claimPieces and excerptPieces are one line of a map text, as mapText
// writes it.
func claimPieces(c *Claim, emit func(string)) {
	emit("\n- ")
	emit(c.Subject)
	if c.Object != "" {
		emit(" -> ")
		emit(c.Object)
	}
	emit(": ")
	emit(c.Description)
}

func excerptPieces(x excerpt, emit func(string)) {
	emit("\n- (")
	emit(x.id)
	emit(") ")
	emit(x.text)
}

// sources lists the claims and existing chunks of summary i's map text, in
// the order mapText writes them (docs/contract.md#citations).
func (m mapInputs) sources(i int, w *walkScratch) Sources {
	src := Sources{CommunityID: m.selected[i].ID, ClaimIDs: []string{}, ChunkIDs: []string{}}
	for c, fresh := range m.walk(i, w) {
		src.ClaimIDs = append(src.ClaimIDs, c.ID)
		for _, x := range fresh {
			src.ChunkIDs = append(src.ChunkIDs, x.id)
			// A community's documents are few: a scan beats a map here.
			if doc := m.chunkDoc[x.id]; doc != "" && !slices.Contains(src.DocumentIDs, doc) {
				src.DocumentIDs = append(src.DocumentIDs, doc)
			}
			if unit := m.chunkUnit[x.id]; unit != "" && !slices.Contains(src.TextUnitIDs, unit) {
				src.TextUnitIDs = append(src.TextUnitIDs, unit)
			}
		}
	}
	return src
}

// allSources is sources of every selected summary, by community id.
func (m mapInputs) allSources() map[string]Sources {
	w := newWalkScratch()
	out := make(map[string]Sources, len(m.selected))
	for i, s := range m.selected {
		out[s.ID] = m.sources(i, w)
	}
	return out
}

// inputCoverage counts what the map texts hold (docs/contract.md#coverage):
// distinct claims, distinct excerpts (the cited chunks that exist) and the
// distinct documents those excerpts name.
func (m mapInputs) inputCoverage(c *Coverage) {
	seen := map[*Claim]bool{}
	for i := range m.selected {
		for claim := range m.claims(i) {
			seen[claim] = true
		}
	}
	docs := map[string]bool{}
	for _, doc := range m.chunkDoc {
		docs[doc] = true
	}
	c.Claims, c.Excerpts, c.Documents = len(seen), len(m.chunkText), len(docs)
}
