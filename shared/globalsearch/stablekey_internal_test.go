package globalsearch

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"cut after a stop and a blank", "Fish rose. Prices fell! Why? Nobody knows.", []string{"Fish rose.", "Prices fell!", "Why?", "Nobody knows."}},
		{"lines are sentences", "# Title\n\nA line\nanother", []string{"# Title", "A line", "another"}},
		{"a stop without a blank does not cut", "Version 1.5 shipped.", []string{"Version 1.5 shipped."}},
		{"empty", "  \n ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, slices.Collect(sentences(tc.text)))
		})
	}
}

// TestStableKey: a community's key is drawn from its claim lines when its
// map text holds any, else from its summary's sentences
// (docs/contract.md#stable-batching): a rewritten summary leaves the key
// of a community with claims alone, and appending a sentence leaves that
// of one without claims alone unless the new sentence hashes first.
func TestStableKey(t *testing.T) {
	withClaims := &Summary{ID: "1", Summary: "Fish rose. Prices fell."}
	bare := &Summary{ID: "2", Summary: "Fish rose. Prices fell."}
	claim := &Claim{ID: "c", CommunityID: "1", Subject: "Port", Object: "Fleet", Description: "Landed more fish."}
	in := func(text string) mapInputs {
		withClaims.Summary = text
		return mapInputs{selected: []*Summary{withClaims, bare}, leavesOf: [][]string{{"1"}, {"2"}},
			claimsByLeaf: map[string][]*Claim{"1": {claim}}}
	}
	before := in("Fish rose. Prices fell.")
	assert.Equal(t, "claim\nPort -> Fleet: Landed more fish.", before.stableKey(0, 7))
	assert.Contains(t, []string{"summary\nFish rose.", "summary\nPrices fell."}, before.stableKey(1, 7))
	assert.Equal(t, before.stableKey(0, 7), in("Another account entirely.").stableKey(0, 7), "a rewritten summary keeps the key")
	assert.Len(t, before.identityDigest(0), 8)
	assert.Equal(t, before.identityDigest(0), in("Another account.").identityDigest(0))
	assert.NotEqual(t, before.identityDigest(0), before.identityDigest(1))
}
