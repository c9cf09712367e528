package globalsearch

import (
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

// stableKeys are the identities stable packing orders the selected
// summaries by (docs/contract.md#stable-batching), one per summary, and
// what breaks a tie between equal ones (the summary's text). A key is a
// min-hash of the community's evidence: of the claim lines its map text
// holds, or, for a community with none, of its summary's sentences. A
// re-built index renumbers communities and rewrites reports while the
// claims behind them stay, so neither a new id nor a rewritten report
// moves a community that has claims; an added or removed claim moves it
// only when it is the one the key was drawn from.
func (m mapInputs) stableKeys(seed int64) (keys, ties []string) {
	keys, ties = make([]string, m.len()), make([]string, m.len())
	for i, s := range m.selected {
		keys[i], ties[i] = m.stableKey(i, seed), s.Summary
	}
	return keys, ties
}

// stableKey is summary i's key under seed (stableKeys).
func (m mapInputs) stableKey(i int, seed int64) string {
	if key := batch.LeastHashed(seed, m.claimLines(i)); key != "" {
		return "claim\n" + key
	}
	return "summary\n" + batch.LeastHashed(seed, sentences(m.selected[i].Summary))
}

// identityDigest is what a standing record keeps of summary i's identity
// (docs/contract.md#standing-questions): the first 4 bytes, in hex, of the
// SHA-256 of its key under seed 0, which pairs a changed community with
// its previous text when the index renumbered it. Records are compared
// across seeds, so the seed is fixed; a collision only pairs two
// communities that changed as one changed and one added.
func (m mapInputs) identityDigest(i int) string {
	sum := sha256.Sum256([]byte(m.stableKey(i, 0)))
	return hex.EncodeToString(sum[:4])
}

// claimLines yields each claim line of summary i's map text, as mapText
// writes it but for the leading "\n- ".
func (m mapInputs) claimLines(i int) iter.Seq[string] {
	return func(yield func(string) bool) {
		var b strings.Builder
		for c := range m.claims(i) {
			b.Reset()
			claimPieces(c, func(s string) { b.WriteString(s) })
			if !yield(strings.TrimPrefix(b.String(), "\n- ")) {
				return
			}
		}
	}
}

// sentences yields the sentences of text: its lines, each cut after a
// ".", "!" or "?" that a blank follows, trimmed, the empty ones left out.
func sentences(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := 0
		for i := 0; i <= len(text); i++ {
			end := i == len(text) || text[i] == '\n' ||
				(i > 0 && (text[i] == ' ' || text[i] == '\t') && strings.ContainsRune(".!?", rune(text[i-1])))
			if !end {
				continue
			}
			if s := strings.TrimSpace(text[start:i]); s != "" && !yield(s) {
				return
			}
			start = i + 1
		}
	}
}
