package globalsearch

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCompareStandingByContent: communities are paired by text first,
// then by identity, then by id (docs/contract.md#standing-questions), so
// a renumbered index reports what changed, not every community removed
// and added, and an index that keeps its ids reports as it always did.
func TestCompareStandingByContent(t *testing.T) {
	h := func(id, hash, key string) CommunityHash { return CommunityHash{ID: id, Hash: hash, Key: key} }
	prev := []CommunityHash{h("1", "aa", "k1"), h("2", "bb", "k2"), h("3", "cc", "k3"), h("4", "dd", "k4")}
	tests := []struct {
		name                    string
		cur                     []CommunityHash
		added, removed, changed []string
		unchanged, renumbered   int
	}{
		{"the same index", prev, nil, nil, nil, 4, 0},
		{"renumbered", []CommunityHash{h("1", "cc", "k3"), h("2", "dd", "k4"), h("3", "aa", "k1"), h("4", "bb", "k2")}, nil, nil, nil, 4, 4},
		{"renumbered, one text changed", []CommunityHash{h("1", "cc", "k3"), h("2", "dd", "k4"), h("3", "a2", "k1"), h("4", "bb", "k2")},
			nil, nil, []string{"3"}, 3, 4},
		{"one text changed, its identity too, under its id", []CommunityHash{h("1", "a2", "k9"), h("2", "bb", "k2"), h("3", "cc", "k3"), h("4", "dd", "k4")},
			nil, nil, []string{"1"}, 3, 0},
		{"renumbered, a text and its identity changed: removed and added",
			[]CommunityHash{h("1", "cc", "k3"), h("2", "dd", "k4"), h("3", "bb", "k2"), h("5", "a2", "k9")}, []string{"5"}, []string{"1"}, nil, 3, 3},
		{"added and removed", []CommunityHash{h("1", "aa", "k1"), h("2", "bb", "k2"), h("3", "cc", "k3"), h("9", "ee", "k5")},
			[]string{"9"}, []string{"4"}, nil, 3, 0},
		{"a record of old, without identities: a renumbered changed text is removed and added",
			[]CommunityHash{h("1", "cc", ""), h("2", "dd", ""), h("3", "a2", ""), h("4", "bb", "")}, []string{"3"}, []string{"1"}, nil, 3, 3},
		{"two communities of one text keep their ids", []CommunityHash{h("1", "aa", "k1"), h("2", "aa", "k1"), h("3", "cc", "k3"), h("4", "dd", "k4")},
			nil, nil, []string{"2"}, 3, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			was := prev
			if tc.cur[0].Key == "" {
				was = []CommunityHash{h("1", "aa", ""), h("2", "bb", ""), h("3", "cc", ""), h("4", "dd", "")}
			}
			ch := compareStanding(Params{StandingQuery: "nightly"}, &StandingRecord{QueryID: "q-1", Communities: was},
				[]Batch{{Index: 0, TextHashes: tc.cur}})
			assert.Equal(t, len(tc.added), ch.Added.Count)
			assert.Equal(t, len(tc.removed), ch.Removed.Count)
			assert.Equal(t, len(tc.changed), ch.Changed.Count)
			assert.Equal(t, append([]string{}, tc.added...), ch.Added.IDs)
			assert.Equal(t, append([]string{}, tc.removed...), ch.Removed.IDs)
			assert.Equal(t, append([]string{}, tc.changed...), ch.Changed.IDs)
			assert.Equal(t, tc.unchanged, ch.Unchanged)
			assert.Equal(t, tc.renumbered, ch.Renumbered)
			assert.Equal(t, len(tc.cur), ch.Communities)
		})
	}
}
