package globalsearch

import (
	"regexp"
	"strings"
)

// Sources are what one community's map text was built from (docs/contract.md#map-text):
// the claims collected from its descendant leaves and the source chunks
// they cite that exist, both in map-text order. Prepare records them with
// each batch, so a cited community can be traced without reading the index.
type Sources struct {
	CommunityID string   `json:"communityId"`
	ClaimIDs    []string `json:"claimIds"`
	ChunkIDs    []string `json:"chunkIds"`
	// Truncated says the lists stop short: the community's claims and
	// chunks held more ids than a plan records (maxSourceBytes).
	Truncated bool `json:"truncated,omitempty"`
}

// maxSourceBytes bounds the id bytes one batch records, so a batch item
// stays well inside DynamoDB's 400 KB beside its content.
const maxSourceBytes = 64 << 10

// within returns s with as many ids as fit in room bytes (claims first,
// then chunks) and the room left.
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

// citationMark finds "[Data: Communities (<ids>)]". Ids never hold "]"
// (docs/contract.md#ids), so ")]" ends the list; the model may write "Community" or
// vary spacing and case, and may end the list with "+more" as GraphRAG's own
// prompts teach.
var citationMark = regexp.MustCompile(`(?i)\[\s*Data\s*:\s*Communit(?:y|ies)\s*\((.*?)\)\s*\]`)

// ParseCitations returns the community ids an answer cites, in first-cited
// order without duplicates. Ids are split at commas and trimmed, so an id
// that itself holds a comma cannot be cited.
func ParseCitations(answer string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, m := range citationMark.FindAllStringSubmatch(answer, -1) {
		for id := range strings.SplitSeq(m[1], ",") {
			id = strings.TrimSpace(id)
			if id == "" || strings.EqualFold(id, "+more") || seen[id] {
				continue
			}
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// CitationMark is how an answer cites communities, as the reduce prompt
// asks for it.
func CitationMark(ids []string) string {
	return "[Data: Communities (" + strings.Join(ids, ", ") + ")]"
}

// citations resolves the ids answer cites against the selected map answers
// (docs/contract.md#citations): an id that is in one of them becomes a citation with the
// sources the plan recorded; any other id is dropped and counted.
func citations(answer string, selected []MapAnswer, batches []Batch) ([]Citation, int) {
	inSelected := map[string]bool{}
	for _, a := range selected {
		for _, id := range a.CommunityIDs {
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
