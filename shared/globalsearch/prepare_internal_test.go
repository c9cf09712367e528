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
	seen := map[string]bool{"stale": true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size := mapTextSize("Summary 中文", tc.leaves, tc.claims, chunkText, seen)
			assert.Equal(t, len(mapText("Summary 中文", tc.leaves, tc.claims, chunkText, size)), size)
		})
	}
}
