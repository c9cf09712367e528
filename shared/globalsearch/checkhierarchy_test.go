package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestCheckHierarchyIsTheSearchsVerdict: a writer that calls CheckHierarchy
// refuses exactly what a search of the same summaries refuses, with the same
// message.
func TestCheckHierarchyIsTheSearchsVerdict(t *testing.T) {
	tests := []struct {
		name      string
		summaries []gs.Summary
		want      string
	}{
		{
			name: "a forest",
			summaries: []gs.Summary{
				{ID: "r", Level: 0, Summary: "R"},
				{ID: "a", Level: 1, ParentCommunityID: "r", Summary: "A"},
				{ID: "b", Level: 3, ParentCommunityID: "a", Summary: "B"},
				{ID: "lone", Level: 2, Summary: "L"},
			},
		},
		{
			name: "a cycle",
			summaries: []gs.Summary{
				{ID: "a", Level: 1, ParentCommunityID: "b", Summary: "A"},
				{ID: "b", Level: 2, ParentCommunityID: "a", Summary: "B"},
			},
			want: "corrupt index: parentCommunityId links form a cycle: a -> b -> a",
		},
		{
			name:      "a missing parent",
			summaries: []gs.Summary{{ID: "a", Level: 1, ParentCommunityID: "ghost", Summary: "A"}},
			want:      "corrupt index: parentCommunityId names no summary: a -> ghost",
		},
		{
			name: "a child not below its parent",
			summaries: []gs.Summary{
				{ID: "r", Level: 1, Summary: "R"},
				{ID: "c", Level: 1, ParentCommunityID: "r", Summary: "C"},
			},
			want: "corrupt index: a child's level must be greater than its parent's: c (level 1) under r (level 1)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := gs.CheckHierarchy(tc.summaries)
			_, searchErr := planFor(t, gs.Records{Summaries: tc.summaries}, nil)
			if tc.want == "" {
				assert.NoError(t, err)
				assert.NoError(t, searchErr)
				return
			}
			assert.EqualError(t, err, tc.want)
			assert.Equal(t, gs.KindCorruptIndex, gs.KindOf(err))
			assert.EqualError(t, searchErr, tc.want, "the search refuses the same summaries with the same message")
		})
	}
}
