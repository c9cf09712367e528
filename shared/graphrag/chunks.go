package graphrag

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// cite returns the chunk ids a claim of text unit unit with source texts
// texts cites, in the mode of the import, and records the chunks it needs.
func (im *importer) cite(unit string, texts []string) []string {
	switch im.opts.Excerpts {
	case ExcerptsNone:
		return []string{}
	case ExcerptsTextUnit:
		if unit == "" {
			return []string{}
		}
		return []string{unit}
	}
	ids := []string{}
	for _, text := range texts {
		// GraphRAG writes "NONE" when the model quoted nothing.
		if text = strings.TrimSpace(text); text == "" || text == "NONE" {
			continue
		}
		id := excerptID(unit, text)
		if slices.Contains(ids, id) {
			continue
		}
		ids = append(ids, id)
		if !im.excerptSeen[id] {
			im.excerptSeen[id] = true
			im.excerpts = append(im.excerpts, globalsearch.Chunk{ID: id, Text: text, DocumentID: im.units[unit].DocumentID, TextUnitID: unit})
		}
	}
	if len(ids) > 0 {
		return ids
	}
	im.report.NoSourceText++
	// Only a unit that exists: a citation of a missing chunk would read as
	// a broken index in every search's diagnostics.
	if _, ok := im.units[unit]; ok {
		im.report.CiteTextUnit++
		im.citedUnits[unit] = true
		return []string{unit}
	}
	return ids
}

// excerptID names an excerpt chunk after its text unit and its text, so that
// a re-import gives it the same id and the same words quoted from two units
// stay two chunks, each with its document. The id is short because the map
// text repeats it before every excerpt (docs/contract.md#map-text): a lead of the unit id
// (to find the unit by eye) and 64 bits of a hash of both (to tell excerpts
// apart). It satisfies the id rule of docs/contract.md#ids whatever the unit id holds.
// The unit's own id, which GraphRAG's tools know, is the chunk's TextUnitID:
// a lead is not enough to find it, and the whole id (128 hex digits in
// GraphRAG 2) in every excerpt line would cost the map text dearly.
func excerptID(unit, text string) string {
	sum := hashParts(unit, "\x00", text)
	lead := []rune{}
	for _, r := range unit {
		if len(lead) == 8 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			break
		}
		lead = append(lead, r)
	}
	if len(lead) == 0 {
		lead = []rune("excerpt")
	}
	return string(lead) + "~" + hex.EncodeToString(sum[:8])
}

// hashParts is the SHA-256 of the parts joined, hashed through a small
// buffer: joining them, or converting a text to bytes, would copy a huge
// covariate once more.
func hashParts(parts ...string) []byte {
	h := sha256.New()
	buf := make([]byte, 0, 32<<10)
	for _, p := range parts {
		for len(p) > 0 {
			n := min(len(p), cap(buf))
			h.Write(append(buf[:0], p[:n]...))
			p = p[n:]
		}
	}
	return h.Sum(nil)
}

func (im *importer) readTextUnits(t *table) error {
	ids, err := t.column("id", true)
	if err != nil {
		return err
	}
	text, err := t.column("text", true)
	if err != nil {
		return err
	}
	// GraphRAG before 2.0 linked a unit to a list of documents.
	docs, err := t.firstColumn(false, "document_id", "document_ids")
	if err != nil {
		return err
	}
	skipped := 0
	for i := range t.rows {
		id := ids.str(i)
		if _, seen := im.units[id]; id == "" || seen {
			skipped++
			continue
		}
		c := globalsearch.Chunk{ID: id, Text: text.str(i), TextUnitID: id}
		if d := docs.strs(i); len(d) > 0 {
			c.DocumentID = d[0]
		}
		im.units[id] = c
		im.unitOrder = append(im.unitOrder, id)
	}
	if skipped > 0 {
		im.warn("%s: %d rows without an id or with a repeated id were skipped", t.name, skipped)
	}
	im.report.TextUnits = len(im.unitOrder)
	im.progress("%d text units from %s", im.report.TextUnits, t.name)
	return nil
}

// collectChunks stores the chunks of the import's mode: every text unit
// (text-unit), or the excerpts and the units claims cite whole (source-text).
func (im *importer) collectChunks() {
	im.records.Chunks = make([]globalsearch.Chunk, 0, len(im.unitOrder)+len(im.excerpts))
	for _, id := range im.unitOrder {
		if im.opts.Excerpts == ExcerptsTextUnit || im.citedUnits[id] {
			im.records.Chunks = append(im.records.Chunks, im.units[id])
		} else {
			im.report.TextUnitsUncited++
		}
	}
	im.records.Chunks = append(im.records.Chunks, im.excerpts...)
	im.report.ExcerptChunks = len(im.excerpts)
	im.report.Chunks = len(im.records.Chunks)
}
