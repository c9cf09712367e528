package globalsearch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ladder of docs/contract.md#auto-level over small hierarchies: each
// rung's members are what holds selects, and its figures add up the tokens
// of exactly those members.
func TestLadder(t *testing.T) {
	sum := func(id, parent string, level int) Summary {
		return Summary{ID: id, ParentCommunityID: parent, Level: level, Summary: "text of " + id}
	}
	type rung struct {
		level   Level
		members []string
	}
	tests := []struct {
		name      string
		summaries []Summary
		want      []rung
	}{
		{"three levels: the deepest level is the leaf rung again", []Summary{
			sum("r0", "", 0), sum("m1", "r0", 1), sum("l1", "m1", 2), sum("l2", "m1", 2), sum("l3", "r0", 1),
		}, []rung{{LeafLevel, []string{"l1", "l2", "l3"}}, {GraphRAGLevel(1), []string{"l3", "m1"}}, {GraphRAGLevel(0), []string{"r0"}}}},
		{"flat: leaves only", []Summary{sum("a", "", 0), sum("b", "", 0)},
			[]rung{{LeafLevel, []string{"a", "b"}}}},
		{"a leaf above L joins rung L", []Summary{
			sum("a", "", 0), sum("r", "", 0), sum("b", "r", 1),
		}, []rung{{LeafLevel, []string{"a", "b"}}, {GraphRAGLevel(0), []string{"a", "r"}}}},
		{"a skipped level leaves a deeper leaf out of rung L", []Summary{
			sum("r0", "", 0), sum("x", "r0", 2), sum("r1", "", 0), sum("m", "r1", 1), sum("y", "m", 2),
		}, []rung{{LeafLevel, []string{"x", "y"}}, {GraphRAGLevel(1), []string{"m"}}, {GraphRAGLevel(0), []string{"r0", "r1"}}}},
		{"blank leaves make no leaf rung", []Summary{
			sum("r", "", 0), {ID: "l", ParentCommunityID: "r", Level: 1, Summary: " "},
		}, []rung{{GraphRAGLevel(0), []string{"r"}}}},
		{"nothing selectable makes no rung", []Summary{{ID: "l", Summary: ""}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHierarchy(tc.summaries)
			require.NoError(t, err)
			selected := h.selectSummaries(AutoLevel)
			tokens := make([]int, len(selected))
			for i := range selected {
				tokens[i] = 10 * (i + 1) // distinct, so a wrong member shows in the sum
			}
			ladder := h.ladder(selected, tokens)
			require.Len(t, ladder, len(tc.want))
			for i, w := range tc.want {
				var members []string
				total := 0
				for j, s := range selected {
					if h.holds(w.level, s) {
						members = append(members, s.ID)
						total += tokens[j]
					}
				}
				assert.Equal(t, w.members, members, "rung %d", i)
				assert.Equal(t, Rung{Level: w.level, Summaries: len(w.members), MapInputTokens: total}, ladder[i], "rung %d", i)
			}
		})
	}
}

func TestChooseRung(t *testing.T) {
	ladder := []Rung{{LeafLevel, 3, 900}, {1, 2, 500}, {0, 1, 600}}
	tests := []struct {
		name    string
		ceiling int
		want    Level
		wantErr string
	}{
		{"everything fits: the finest", 5000, LeafLevel, ""},
		{"exactly the leaf rung", 900, LeafLevel, ""},
		{"the finest that fits, not the smallest", 650, 1, ""},
		{"only the smallest fits", 500, 1, ""},
		{"none fits names the smallest", 499, 0,
			`no candidate of communityLevel "auto" fits maxMapInputTokens 499: the smallest, level 1 (2 summaries), holds 500 estimated map input tokens: raise maxMapInputTokens to at least 500`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseRung(ladder, tc.ceiling)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, KindInvalidInput, KindOf(err))
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Level)
		})
	}
}
