package globalsearch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMapTextSizeIsExact(t *testing.T) {
	big := strings.Repeat("excerpt 中文 ", 100)
	chunkText := map[string]string{"ch1": "First.", "big": big}
	many := make([]*Claim, 50)
	for i := range many {
		many[i] = &Claim{ID: "k", Subject: "S", Description: "cites big twice", SourceChunkIDs: []string{"big", "big", "gone"}}
	}
	tests := []struct {
		name   string
		leaves []string
		claims map[string][]*Claim
	}{
		{"no claims", []string{"l1"}, nil},
		{"claims without chunks", []string{"l1"}, map[string][]*Claim{"l1": {{Subject: "S", Object: "O", Description: "d"}}}},
		{"only missing chunks", []string{"l1"}, map[string][]*Claim{"l1": {{Subject: "S", SourceChunkIDs: []string{"gone"}}}}},
		{"one chunk cited by many claims of many leaves", []string{"l1", "l2"}, map[string][]*Claim{
			"l1": many, "l2": append([]*Claim{{Subject: "T", Object: "U", SourceChunkIDs: []string{"ch1", "big"}}}, many...),
		}},
	}
	// One scratch for every size, left dirty: a walk must not depend on
	// what an earlier one saw, so the text is built with a clean one.
	w := newWalkScratch()
	w.seen["ch1"], w.seen["big"] = true, true
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mapInputs{selected: []*Summary{{ID: "s", Summary: "Summary 中文"}}, leavesOf: [][]string{tc.leaves},
				claimsByLeaf: tc.claims, chunkText: chunkText}
			m.sizes = []int{m.mapTextSize(0, w)}
			assert.Equal(t, len(m.mapText(0, newWalkScratch())), m.sizes[0])
		})
	}
}

// TestMapTextWalk pins the one walk every map-text reader shares: claims
// leaf by leaf, each with the existing chunks it is the first to cite.
func TestMapTextWalk(t *testing.T) {
	m := mapInputs{
		selected: []*Summary{{ID: "r"}},
		leavesOf: [][]string{{"l2", "l1"}},
		claimsByLeaf: map[string][]*Claim{
			"l1": {{ID: "k1", SourceChunkIDs: []string{"ch1", "ch2"}}, {ID: "k3", SourceChunkIDs: []string{"ch3", "ch1"}}},
			"l2": {{ID: "k2", SourceChunkIDs: []string{"ch2", "gone", "ch2"}}, {ID: "k4"}},
		},
		chunkText: map[string]string{"ch1": "one", "ch2": "two", "ch3": "three"},
	}
	type step struct {
		claim  string
		chunks []string
	}
	walk := func(stopAfter int) []step {
		var got []step
		for c, fresh := range m.walk(0, newWalkScratch()) {
			s := step{claim: c.ID}
			for _, x := range fresh {
				s.chunks = append(s.chunks, x.id+"="+x.text)
			}
			got = append(got, s)
			if len(got) == stopAfter {
				break
			}
		}
		return got
	}
	assert.Equal(t, []step{
		{"k2", []string{"ch2=two"}}, // a missing chunk is skipped, a repeated one written once
		{"k4", nil},
		{"k1", []string{"ch1=one"}}, // ch2 is cited first by k2
		{"k3", []string{"ch3=three"}},
	}, walk(0))
	assert.Equal(t, []step{{"k2", []string{"ch2=two"}}, {"k4", nil}}, walk(2), "a walk stops when its reader does")
	assert.Equal(t, Sources{CommunityID: "r", ClaimIDs: []string{"k2", "k4", "k1", "k3"}, ChunkIDs: []string{"ch2", "ch1", "ch3"}},
		m.sources(0, newWalkScratch()))
}
