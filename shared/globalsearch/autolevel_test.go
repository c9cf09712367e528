package globalsearch_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// wholeSummaries plans hierarchyRecords at level; the default budget holds
// every map text whole.
func wholeSummaries(t *testing.T, level gs.Level, ceiling int) (gs.Plan, error) {
	t.Helper()
	return planFor(t, hierarchyRecords(), func(r *gs.Request) {
		r.CommunityLevel = &level
		if ceiling > 0 {
			r.MaxMapInputTokens = &ceiling
		}
	})
}

var partHeader = regexp.MustCompile(`(?m)^\[Community ID: [^\]]*\]\n`)

// mapTextTokens is the estimate of each map text of plan, summed: what a
// rung of the ladder counts for the same summaries.
func mapTextTokens(t *testing.T, plan gs.Plan) int {
	t.Helper()
	total := 0
	for _, b := range plan.Batches {
		texts := partHeader.Split(b.Content, -1)
		require.Len(t, texts, len(b.CommunityIDs)+1, "every summary whole, after its part header")
		for i, text := range texts[1:] {
			if i < len(texts)-2 {
				text = strings.TrimSuffix(text, "\n") // the newline that joins parts
			}
			total += tokens.Estimate(text)
		}
	}
	return total
}

// communityLevel "auto" plans the finest candidate whose plan fits
// maxMapInputTokens, packing included, and that plan is the plan of the
// equivalent fixed selection: the same batches, coverage and missing
// chunks (docs/contract.md#auto-level).
func TestAutoLevelChoosesTheFinestThatFits(t *testing.T) {
	fixed := map[gs.Level]gs.Plan{}
	rungTokens, planned := map[gs.Level]int{}, map[gs.Level]int{}
	// hierarchyRecords' rungs: every leaf; level 1 (m1 and the leaf l3,
	// which is level 1 itself); level 0. Level 2 holds leaves only and with
	// l3 above it is the leaf rung again.
	g1, g0 := gs.GraphRAGLevel(1), gs.GraphRAGLevel(0)
	levels := []gs.Level{gs.LeafLevel, g1, g0}
	for _, l := range levels {
		plan, err := wholeSummaries(t, l, 0)
		require.NoError(t, err)
		fixed[l], rungTokens[l], planned[l] = plan, mapTextTokens(t, plan), plan.MapInputTokens()
	}
	require.Greater(t, planned[gs.LeafLevel], rungTokens[gs.LeafLevel], "packing adds the prompt")
	require.Greater(t, planned[gs.LeafLevel]-1, planned[g1], "the test needs a ladder that shrinks")
	require.Greater(t, planned[g1], planned[g0])
	tests := []struct {
		name    string
		ceiling int
		want    gs.Level
	}{
		{"room for the leaves' plan", planned[gs.LeafLevel], gs.LeafLevel},
		{"the leaves' map texts fit, their plan does not", planned[gs.LeafLevel] - 1, g1},
		{"room for level 1's plan only", planned[g1], g1},
		{"room for the root's plan only", planned[g1] - 1, g0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := wholeSummaries(t, gs.AutoLevel, tc.ceiling)
			require.NoError(t, err)
			require.NotNil(t, plan.AutoLevel)
			// Packed: every rung up to the chosen one whose size fits.
			var wantLadder []gs.Rung
			summaries := map[gs.Level]int{gs.LeafLevel: 3, g1: 2, g0: 1}
			for i, l := range levels {
				r := gs.Rung{Level: l, Summaries: summaries[l], MapInputTokens: rungTokens[l]}
				if rungTokens[l] <= tc.ceiling && !slices.Contains(levels[:i], tc.want) {
					r.PlannedMapInputTokens = planned[l]
				}
				wantLadder = append(wantLadder, r)
			}
			assert.Equal(t, gs.LevelChoice{MaxMapInputTokens: tc.ceiling, Ladder: wantLadder, LevelUsed: tc.want}, *plan.AutoLevel)
			assert.LessOrEqual(t, plan.MapInputTokens(), tc.ceiling, "the ceiling bounds the plan")
			want := fixed[tc.want]
			assert.Equal(t, want.Batches, plan.Batches)
			assert.Equal(t, want.SummaryCount, plan.SummaryCount)
			assert.Equal(t, want.Coverage, plan.Coverage, "coverage counts the chosen rung's excerpts only")
			assert.Equal(t, want.MissingChunks, plan.MissingChunks)
			assert.Equal(t, want.OrphanClaims, plan.OrphanClaims)
		})
	}
	for _, ceiling := range []int{planned[g0] - 1, rungTokens[g0] - 1} {
		t.Run("none fits "+itoa(int64(ceiling)), func(t *testing.T) {
			_, err := wholeSummaries(t, gs.AutoLevel, ceiling)
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.Contains(t, err.Error(), "the smallest, level graphrag:0 (1 summary), plans "+itoa(int64(planned[g0])))
			assert.Contains(t, err.Error(), "raise maxMapInputTokens to at least "+itoa(int64(planned[g0])))
			_, err = wholeSummaries(t, gs.AutoLevel, planned[g0])
			assert.NoError(t, err, "the ceiling named fits")
		})
	}
	t.Run("a fixed level reads no ceiling", func(t *testing.T) {
		plan, err := wholeSummaries(t, gs.LeafLevel, 1)
		require.NoError(t, err)
		assert.Nil(t, plan.AutoLevel)
		assert.Equal(t, fixed[gs.LeafLevel].Batches, plan.Batches)
	})
}

// An empty namespace has no ladder: auto selects nothing, as leaf does,
// and says the namespace is empty.
func TestAutoLevelOfAnEmptyNamespace(t *testing.T) {
	e, _ := newEngine(t, gs.Records{}, nil)
	p := autoParams(t, 1000)
	plan, err := e.Plan(context.Background(), p)
	require.NoError(t, err)
	assert.Empty(t, plan.Batches)
	assert.True(t, plan.EmptyNamespace)
	assert.Nil(t, plan.AutoLevel)
}

func autoParams(t *testing.T, ceiling int) gs.Params {
	t.Helper()
	level := gs.AutoLevel
	p, err := gs.Request{Query: "What changed?", CommunityLevel: &level, MaxMapInputTokens: &ceiling}.Params(gs.SpecDefaults)
	require.NoError(t, err)
	return p
}

// A whole search with auto records the request's level ("auto") and what
// it used (docs/contract.md#result).
func TestAutoLevelSearchRecordsTheLevelUsed(t *testing.T) {
	leaf, err := wholeSummaries(t, gs.LeafLevel, 0)
	require.NoError(t, err)
	e, _ := newEngine(t, hierarchyRecords(), &fakeModel{complete: answerEverything})
	res, err := e.Search(context.Background(), autoParams(t, leaf.MapInputTokens()-1))
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Equal(t, gs.AutoLevel, res.CommunityLevel)
	require.NotNil(t, res.Diagnostics.AutoLevel)
	assert.Equal(t, gs.GraphRAGLevel(1), res.Diagnostics.AutoLevel.LevelUsed)
	assert.Equal(t, 2, res.Diagnostics.SummaryCount)
	data, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"communityLevel":"auto"`)
	assert.Contains(t, string(data), `"levelUsed":"graphrag:1"`)
}

func TestAutoLevelRequestRules(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	withCeiling, err := gs.DefaultsFromEnv(env(map[string]string{"GRAPHRAG_COMMUNITY_LEVEL": "auto", "GRAPHRAG_MAX_MAP_INPUT_TOKENS": "20000"}))
	require.NoError(t, err)
	tests := []struct {
		name     string
		defaults gs.Defaults
		body     string
		want     int
		wantErr  string
	}{
		{"auto with a ceiling", gs.SpecDefaults, `{"query":"q","communityLevel":"auto","maxMapInputTokens":5000}`, 5000, ""},
		{"the deployment's auto and ceiling", withCeiling, `{"query":"q"}`, 20000, ""},
		{"a request lowers the ceiling", withCeiling, `{"query":"q","maxMapInputTokens":900}`, 900, ""},
		{"auto without a ceiling", gs.SpecDefaults, `{"query":"q","communityLevel":"auto"}`, 0,
			`communityLevel "auto" needs maxMapInputTokens, the most estimated map input tokens it may choose (or the deployment's GRAPHRAG_MAX_MAP_INPUT_TOKENS)`},
		{"zero", gs.SpecDefaults, `{"query":"q","communityLevel":"auto","maxMapInputTokens":0}`, 0, "maxMapInputTokens must be a positive integer"},
		{"a string", gs.SpecDefaults, `{"query":"q","maxMapInputTokens":"5000"}`, 0, "maxMapInputTokens must be a positive integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gs.ParseRequest([]byte(tc.body), tc.defaults)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, gs.AutoLevel, p.CommunityLevel)
			assert.Equal(t, tc.want, p.MaxMapInputTokens)
			stored, err := json.Marshal(p)
			require.NoError(t, err)
			again, err := gs.ParseRequest(stored, tc.defaults)
			require.NoError(t, err, "the stored request parses again")
			assert.True(t, p.SameRequest(again))
		})
	}
	_, err = gs.DefaultsFromEnv(env(map[string]string{"GRAPHRAG_MAX_MAP_INPUT_TOKENS": "lots"}))
	assert.EqualError(t, err, "GRAPHRAG_MAX_MAP_INPUT_TOKENS: maxMapInputTokens must be a positive integer")
	level, err := gs.ParseLevel("auto")
	require.NoError(t, err)
	assert.Equal(t, "auto", level.String())
}
