package globalsearch

import (
	"errors"
	"slices"
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

// The finest rung whose plan fits is chosen, its packing included: a rung
// whose size fits but whose batches do not is passed over, and none
// fitting names the least planned figure (docs/contract.md#auto-level).
func TestChooseRung(t *testing.T) {
	ladder := []Rung{{LeafLevel, 3, 900, 0}, {1, 2, 500, 0}, {0, 1, 600, 0}}
	// Packing adds 10% here: a rung of size 900 plans 990.
	planned := func(packed *[]Level) func(Level) (int, error) {
		return func(l Level) (int, error) {
			*packed = append(*packed, l)
			for _, r := range ladder {
				if r.Level == l {
					return r.MapInputTokens * 11 / 10, nil
				}
			}
			return 0, errors.New("no such rung")
		}
	}
	tests := []struct {
		name       string
		ceiling    int
		want       Level
		wantPacked []Level
		wantErr    string
	}{
		{"everything fits: the finest", 5000, LeafLevel, []Level{LeafLevel}, ""},
		{"exactly the leaf rung's plan", 990, LeafLevel, []Level{LeafLevel}, ""},
		{"the leaf rung's size fits, its plan does not", 900, 1, []Level{LeafLevel, 1}, ""},
		{"a coarser rung's plan fits", 660, 1, []Level{1}, ""},
		{"exactly the smallest plan", 550, 1, []Level{1}, ""},
		{"a size that fits, a plan that does not", 520, 0, []Level{1},
			`no candidate of communityLevel "auto" fits maxMapInputTokens 520: the smallest, level 1 (2 summaries), plans 550 estimated map input tokens: raise maxMapInputTokens to at least 550`},
		{"no size fits: the smallest plan named", 499, 0, []Level{1},
			`no candidate of communityLevel "auto" fits maxMapInputTokens 499: the smallest, level 1 (2 summaries), plans 550 estimated map input tokens: raise maxMapInputTokens to at least 550`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var packed []Level
			got, err := chooseRung(slices.Clone(ladder), tc.ceiling, planned(&packed))
			assert.Equal(t, tc.wantPacked, packed, "the rungs packed")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, KindInvalidInput, KindOf(err))
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Level)
			assert.LessOrEqual(t, got.PlannedMapInputTokens, tc.ceiling)
		})
	}
	_, err := chooseRung(slices.Clone(ladder), 5000, func(Level) (int, error) { return 0, errors.New("pack failed") })
	assert.EqualError(t, err, "pack failed", "a packing error is the plan's")
}
