package globalsearch_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// hierarchyRecords: root r0 has children m1 (with leaves l1, l2) and leaf l3.
func hierarchyRecords() gs.Records {
	return gs.Records{
		Summaries: []gs.Summary{
			{ID: "r0", Level: 0, Summary: "Root summary"},
			{ID: "m1", Level: 1, ParentCommunityID: "r0", Summary: "Middle summary"},
			{ID: "l2", Level: 2, ParentCommunityID: "m1", Summary: "Leaf two"},
			{ID: "l1", Level: 2, ParentCommunityID: "m1", Summary: "Leaf one"},
			{ID: "l3", Level: 1, ParentCommunityID: "r0", Summary: "Leaf three"},
			{ID: "blank", Level: 1, ParentCommunityID: "r0", Summary: "   "},
		},
		Claims: []gs.Claim{
			{ID: "k2", CommunityID: "l1", Subject: "Port", Object: "City", Description: "grew", SourceChunkIDs: []string{"ch2", "ch1"}},
			{ID: "k1", CommunityID: "l1", Subject: "Fleet", Description: "shrank", SourceChunkIDs: []string{"ch1", "gone"}},
			{ID: "k3", CommunityID: "l2", Subject: "Mill", Object: "River", Description: "closed", SourceChunkIDs: []string{"ch2"}},
			{ID: "k4", CommunityID: "m1", Subject: "Orphan", Description: "on a non-leaf"},
			{ID: "k5", CommunityID: "nowhere", Subject: "Orphan", Description: "on nothing"},
		},
		Chunks: []gs.Chunk{{ID: "ch1", Text: "First excerpt."}, {ID: "ch2", Text: "Second excerpt."}},
	}
}

func planFor(t *testing.T, records gs.Records, mutate func(*gs.Request)) (gs.Plan, error) {
	t.Helper()
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", records))
	noShuffle := false
	req := gs.Request{Query: "What changed?", Shuffle: &noShuffle}
	if mutate != nil {
		mutate(&req)
	}
	p, err := req.Params(gs.SpecDefaults)
	require.NoError(t, err)
	return (&gs.Engine{Index: s}).Plan(context.Background(), p)
}

func TestMapTextOfALeaf(t *testing.T) {
	plan, err := planFor(t, hierarchyRecords(), nil)
	require.NoError(t, err)
	assert.Equal(t, 3, plan.SummaryCount, "leaves l1, l2, l3; the blank one is not selected")
	assert.Equal(t, 2, plan.OrphanClaims)
	assert.Equal(t, 1, plan.MissingChunks)
	require.Len(t, plan.Batches, 1)
	want := "[Community ID: l1 | summary part 1]\n" +
		"[Community summary]\nLeaf one\n\n" +
		"[Supporting claims]\n- Fleet: shrank\n- Port -> City: grew\n\n" +
		"[Source excerpts]\n- (ch1) First excerpt.\n- (ch2) Second excerpt.\n" +
		"[Community ID: l2 | summary part 1]\n" +
		"[Community summary]\nLeaf two\n\n[Supporting claims]\n- Mill -> River: closed\n\n[Source excerpts]\n- (ch2) Second excerpt.\n" +
		"[Community ID: l3 | summary part 1]\n[Community summary]\nLeaf three"
	assert.Equal(t, want, plan.Batches[0].Content)
	assert.Equal(t, []string{"l1", "l2", "l3"}, plan.Batches[0].CommunityIDs)
}

func TestMapTextOfALevelCollectsDescendantLeaves(t *testing.T) {
	plan, err := planFor(t, hierarchyRecords(), func(r *gs.Request) { l := gs.Level(0); r.CommunityLevel = &l })
	require.NoError(t, err)
	require.Len(t, plan.Batches, 1)
	want := "[Community ID: r0 | summary part 1]\n[Community summary]\nRoot summary\n\n" +
		"[Supporting claims]\n- Fleet: shrank\n- Port -> City: grew\n- Mill -> River: closed\n\n" +
		"[Source excerpts]\n- (ch1) First excerpt.\n- (ch2) Second excerpt."
	assert.Equal(t, want, plan.Batches[0].Content, "leaves depth-first by id, chunks deduplicated in first-cited order")
}

// countingIndex counts reads, to prove bad input costs none.
type countingIndex struct {
	gs.Index
	reads int
}

func (c *countingIndex) Open(ctx context.Context, ns string) (gs.Snapshot, error) {
	c.reads++
	return c.Index.Open(ctx, ns)
}

func TestPlanRejectsBadBudgetsBeforeAnyRead(t *testing.T) {
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", hierarchyRecords()))
	idx := &countingIndex{Index: s}
	// Built by hand: ParseRequest would refuse it first, so this is Plan's
	// own check.
	p := gs.Params{QueryID: "q-1", Query: "q", Namespace: "default", CommunityLevel: gs.LeafLevel,
		MapTokenBudget: 10, ReduceTokenBudget: 8000, ReduceOutputReserve: 1024, MapConcurrency: 1}
	_, err := (&gs.Engine{Index: idx}).Plan(context.Background(), p)
	require.Error(t, err)
	assert.Equal(t, "map token budget cannot fit the map prompt", err.Error())
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Zero(t, idx.reads)
}

func TestPlanTooSmallForASummary(t *testing.T) {
	skeleton := tokens.Estimate(gs.DefaultPrompts().Map.Skeleton("What changed?"))
	// Room for the skeleton and most of a header, not for a code point.
	budget, reserve := skeleton+8, 0
	_, err := planFor(t, hierarchyRecords(), func(r *gs.Request) { r.MapTokenBudget, r.MapOutputReserve = &budget, &reserve })
	require.Error(t, err)
	assert.Equal(t, "map token budget is too small for community summary l1", err.Error())
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
}

func TestPlanTooLarge(t *testing.T) {
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", leafNamespace(5)))
	p := oneBatchPerSummary(t, "q?", nil)
	_, err := (&gs.Engine{Index: s, MaxBatches: 4}).Plan(context.Background(), p)
	require.Error(t, err)
	assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err))
	assert.Contains(t, err.Error(), "raise mapTokenBudget")
}

func TestShuffleIsSeeded(t *testing.T) {
	order := func(seed int64) []string {
		s := memstore.New()
		require.NoError(t, s.ReplaceNamespace(context.Background(), "default", leafNamespace(12)))
		p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.Shuffle = nil; r.ShuffleSeed = &seed })
		plan, err := (&gs.Engine{Index: s}).Plan(context.Background(), p)
		require.NoError(t, err)
		var ids []string
		for _, b := range plan.Batches {
			ids = append(ids, b.CommunityIDs...)
			assert.Equal(t, b.EstimatedTokens, tokens.Estimate(gs.DefaultPrompts().Map.Skeleton("q?")+"\n"+b.Content))
			assert.LessOrEqual(t, b.EstimatedTokens, p.MapPromptBudget())
		}
		return ids
	}
	assert.Equal(t, order(7), order(7), "the same seed replays the same order")
	assert.NotEqual(t, order(7), order(8))
	assert.ElementsMatch(t, order(7), order(8))
}

// The domain imports no AWS package.
func TestDomainImportsNoAWS(t *testing.T) {
	for _, pkg := range []string{".", "../batch", "../tokens"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		require.NoError(t, err, string(out))
		for _, dep := range strings.Fields(string(out)) {
			assert.False(t, strings.HasPrefix(dep, "github.com/aws/"), "%s depends on %s", pkg, dep)
		}
	}
}
