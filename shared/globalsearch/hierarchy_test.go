package globalsearch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestCorruptHierarchyNamesTheIDs(t *testing.T) {
	tests := []struct {
		name      string
		summaries []gs.Summary
		want      string
	}{
		{
			name: "a child at its parent's level",
			summaries: []gs.Summary{
				{ID: "r", Level: 0, Summary: "R"},
				{ID: "m", Level: 0, ParentCommunityID: "r", Summary: "M"},
				{ID: "l", Level: 2, ParentCommunityID: "m", Summary: "L"},
			},
			want: "corrupt index: a child's level must be greater than its parent's: m (level 0) under r (level 0)",
		},
		{
			name: "a child above its parent",
			summaries: []gs.Summary{
				{ID: "r", Level: 3, Summary: "R"},
				{ID: "b", Level: 1, ParentCommunityID: "r", Summary: "B"},
				{ID: "a", Level: 4, ParentCommunityID: "r", Summary: "A"},
			},
			want: "corrupt index: a child's level must be greater than its parent's: b (level 1) under r (level 3)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := planFor(t, gs.Records{Summaries: tc.summaries}, nil)
			require.Error(t, err)
			assert.Equal(t, gs.KindCorruptIndex, gs.KindOf(err))
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// A corrupt index of 100,000 summaries gives a message of a few hundred
// bytes that still names the first ids and says how many more there are.
func TestCorruptIndexListsAreCapped(t *testing.T) {
	const n = 100_000
	id := func(i int) string { return fmt.Sprintf("c%06d", i) }
	cycle := make([]gs.Summary, n)
	missing := make([]gs.Summary, n)
	flat := make([]gs.Summary, n+1)
	flat[n] = gs.Summary{ID: "root", Summary: "R"}
	for i := range n {
		cycle[i] = gs.Summary{ID: id(i), Level: i, ParentCommunityID: id((i + 1) % n), Summary: "S"}
		missing[i] = gs.Summary{ID: id(i), Level: 1, ParentCommunityID: "ghost" + id(i), Summary: "S"}
		flat[i] = gs.Summary{ID: id(i), ParentCommunityID: "root", Summary: "S"}
	}
	tests := []struct {
		name       string
		summaries  []gs.Summary
		wantPrefix string
		listed     int // items in the full list
	}{
		{"cycle", cycle, "corrupt index: parentCommunityId links form a cycle: c000000 -> c000001 -> ", n + 1},
		{"missing parents", missing, "corrupt index: parentCommunityId names no summary: c000000 -> ghostc000000, ", n},
		{"levels", flat, "corrupt index: a child's level must be greater than its parent's: c000000 (level 0) under root (level 0), ", n},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := planFor(t, gs.Records{Summaries: tc.summaries}, nil)
			require.Error(t, err)
			assert.Equal(t, gs.KindCorruptIndex, gs.KindOf(err))
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, tc.wantPrefix), msg)
			assert.True(t, strings.HasSuffix(msg, fmt.Sprintf("… and %d more", tc.listed-20)), msg)
			assert.Less(t, len(msg), 2000)
		})
	}
}

// docs/contract.md#selection: a level no summary has lists the levels that
// exist, ascending, at most MaxListedLevels of them however many an index
// holds, so the plan item and the status line stay small.
func TestAvailableLevelsAreSortedDistinctAndCapped(t *testing.T) {
	many := make([]gs.Summary, 5000)
	for i := range many {
		// Blank, so nothing is selected; each at its own level, listed in
		// descending order so that sorting is seen.
		many[i] = gs.Summary{ID: fmt.Sprintf("c%05d", i), Level: 2 * (len(many) - i)}
	}
	firstLevels := make([]int, gs.MaxListedLevels)
	for i := range firstLevels {
		firstLevels[i] = 2 * (i + 1)
	}
	tests := []struct {
		name      string
		summaries []gs.Summary
		want      []int
	}{
		{"repeated levels are listed once", []gs.Summary{
			{ID: "a", Level: 3, Summary: "A"}, {ID: "b", Level: 1, Summary: "B"}, {ID: "c", Level: 3, Summary: "C"}, {ID: "d", Level: 0, Summary: "D"},
		}, []int{0, 1, 3}},
		{"many levels: the lowest are listed", many, firstLevels},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := planFor(t, gs.Records{Summaries: tc.summaries}, func(r *gs.Request) {
				absent := gs.Level(7)
				r.CommunityLevel = &absent
			})
			require.NoError(t, err)
			require.Zero(t, plan.SummaryCount)
			assert.Equal(t, tc.want, plan.AvailableLevels)
		})
	}
}

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
