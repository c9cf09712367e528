package globalsearch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/contract.md#hierarchy: a corrupt index of huge ids (as a store
// written by something else may hold) still gives a short message: each
// id is cut (Echo) and each list capped (ListCapped).
func TestCorruptIndexMessagesCutEachID(t *testing.T) {
	huge := func(i int) string { return fmt.Sprintf("%07d", i) + strings.Repeat("x", 1<<20) }
	shown := func(i int) string { return Echo(huge(i)) }
	const n = 30
	missing := make([]Summary, n)
	cycle := make([]Summary, n)
	flat := make([]Summary, n+1)
	flat[n] = Summary{ID: huge(n), Summary: "R"}
	for i := range n {
		missing[i] = Summary{ID: huge(i), Level: 1, ParentCommunityID: "ghost" + huge(i), Summary: "S"}
		cycle[i] = Summary{ID: huge(i), Level: i, ParentCommunityID: huge((i + 1) % n), Summary: "S"}
		flat[i] = Summary{ID: huge(i), ParentCommunityID: huge(n), Summary: "S"}
	}
	tests := []struct {
		name       string
		summaries  []Summary
		wantPrefix string
		more       int // items past the MaxListed shown
	}{
		{"missing parents", missing, "corrupt index: parentCommunityId names no summary: " + shown(0) + " -> " + Echo("ghost"+huge(0)) + ", ", n - MaxListed},
		{"cycle", cycle, "corrupt index: parentCommunityId links form a cycle: " + shown(0) + " -> " + shown(1) + " -> ", n + 1 - MaxListed},
		{"levels", flat, "corrupt index: a child's level must be greater than its parent's: " + shown(0) + " (level 0) under " + shown(n) + " (level 0), ", n - MaxListed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newHierarchy(tc.summaries)
			require.Error(t, err)
			assert.Equal(t, KindCorruptIndex, KindOf(err))
			msg := err.Error()
			require.Less(t, len(msg), 8000, "%.300s", msg)
			assert.True(t, strings.HasPrefix(msg, tc.wantPrefix), msg)
			assert.True(t, strings.HasSuffix(msg, fmt.Sprintf("… and %d more", tc.more)), msg)
		})
	}
}
