package globalsearch

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The measure communityLevel "auto" used before it was linear
// (docs/contract.md#auto-level), kept as the reference: every selected
// summary's leaves walked down from it, and each map text walked whole.

func (h *hierarchy) descendantLeavesWalk(id string, out []string) []string {
	kids := h.children[id]
	if len(kids) == 0 {
		return append(out, id)
	}
	for _, k := range kids {
		out = h.descendantLeavesWalk(k, out)
	}
	return out
}

func (m mapInputs) mapTextCountWalk(i int, w *walkScratch) tokens.Count {
	var c tokens.Count
	m.pieces(i, w, func(s string) { c = c.Add(tokens.Of(s)) })
	return c
}

// randomInputs is a random forest of n summaries with claims on its leaves
// (and some orphans), chunks cited by several claims of several leaves,
// cited chunks that do not exist, blank summaries and skipped levels.
func randomInputs(r *rand.Rand, n int) (*hierarchy, []Claim, map[string]string, error) {
	summaries := make([]Summary, n)
	for i := range summaries {
		s := Summary{ID: fmt.Sprintf("s%02d", r.IntN(1000)*100+i), Summary: fmt.Sprintf("text é %d", i)}
		if r.IntN(6) == 0 {
			s.Summary = " "
		}
		if i > 0 && r.IntN(4) != 0 {
			parent := &summaries[r.IntN(i)]
			s.ParentCommunityID, s.Level = parent.ID, parent.Level+1+r.IntN(2)
		}
		summaries[i] = s
	}
	chunks := map[string]string{}
	for i := range 6 {
		chunks[fmt.Sprintf("ch%d", i)] = fmt.Sprintf("excerpt ü %d", i)
	}
	var claims []Claim
	for i := range r.IntN(3 * n) {
		c := Claim{ID: fmt.Sprintf("k%03d", i), CommunityID: summaries[r.IntN(n)].ID, Subject: "subj", Description: fmt.Sprintf("desc %d", i)}
		if r.IntN(2) == 0 {
			c.Object = "obj"
		}
		for range r.IntN(4) {
			c.SourceChunkIDs = append(c.SourceChunkIDs, fmt.Sprintf("ch%d", r.IntN(8))) // ch6, ch7 do not exist
		}
		claims = append(claims, c)
	}
	h, err := newHierarchy(summaries)
	return h, claims, chunks, err
}

// mapTextCounts, in one pass, counts every map text exactly as walking
// each one did, so the ladder and the level chosen are the same on every
// input (docs/contract.md#auto-level).
func TestMapTextCountsMatchWalkingEachText(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 6))
	for trial := range 500 {
		h, claims, chunks, err := randomInputs(r, 1+r.IntN(25))
		require.NoError(t, err, "trial %d", trial)
		selected := h.selectSummaries(AutoLevel)
		if len(selected) == 0 {
			continue
		}
		spans := h.leafSpans()
		in := mapInputs{selected: selected, leavesOf: make([][]string, len(selected)), chunkText: chunks}
		in.claimsByLeaf, _ = groupClaims(h, claims)
		w := newWalkScratch()
		want, wantTokens := make([]tokens.Count, len(selected)), make([]int, len(selected))
		for i, s := range selected {
			walked := h.descendantLeavesWalk(s.ID, nil)
			require.Equal(t, walked, spans.of(s.ID), "trial %d: leaves of %s", trial, s.ID)
			in.leavesOf[i] = walked
			want[i] = in.mapTextCountWalk(i, w)
			wantTokens[i] = want[i].Tokens()
		}
		got := in.mapTextCounts(spans)
		require.Equal(t, want, got, "trial %d", trial)
		in.sizes = make([]int, len(selected))
		for i := range selected {
			assert.Equal(t, tokens.Of(in.mapText(i, w)), got[i], "trial %d: the text itself", trial)
		}
		gotTokens := make([]int, len(got))
		for i, c := range got {
			gotTokens[i] = c.Tokens()
		}
		assert.Equal(t, h.ladder(selected, wantTokens), h.ladder(selected, gotTokens), "trial %d", trial)
	}
}
