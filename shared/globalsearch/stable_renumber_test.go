package globalsearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// renumber deals r's community ids out anew, the same set of ids in a
// fixed random order, as a new Leiden run numbers its communities again:
// every community keeps its text under another one's id.
func renumber(r gs.Records) gs.Records {
	ids := make([]string, len(r.Summaries))
	for i, s := range r.Summaries {
		ids[i] = s.ID
	}
	slices.Sort(ids)
	dealt := slices.Clone(ids)
	rand.New(rand.NewPCG(7, 11)).Shuffle(len(dealt), func(i, j int) { dealt[i], dealt[j] = dealt[j], dealt[i] })
	to := map[string]string{"": ""}
	for i, id := range ids {
		to[id] = dealt[i]
	}
	out := gs.Records{Chunks: r.Chunks}
	for _, s := range r.Summaries {
		s.ID, s.ParentCommunityID = to[s.ID], to[s.ParentCommunityID]
		out.Summaries = append(out.Summaries, s)
	}
	for _, c := range r.Claims {
		c.CommunityID = to[c.CommunityID]
		out.Claims = append(out.Claims, c)
	}
	return out
}

// TestStableBatchingSurvivesRenumbering: stable packing orders and cuts by
// the communities' evidence, never their ids (docs/contract.md#stable-batching),
// so a renumbering alone keeps every batch's texts, and a re-index that
// also renumbers keeps as many as the same re-index without it.
func TestStableBatchingSurvivesRenumbering(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and plans a 2,000-summary index; skipped with -short")
	}
	before, after := reindexed(t)
	reused, batches, _ := reuse(t, before, renumber(before), gs.BatchingStable, 7)
	assert.Equal(t, batches, reused, "renumbering alone: every batch reused")
	plain, plainBatches, _ := reuse(t, before, after, gs.BatchingStable, 7)
	reused, batches, _ = reuse(t, before, renumber(after), gs.BatchingStable, 7)
	assert.Equal(t, plainBatches, batches)
	assert.Equal(t, plain, reused, "a renumbered re-index reuses what the re-index alone does")
	assert.GreaterOrEqual(t, float64(reused)/float64(batches), 0.85)
}

// TestStableChangeMovesItsBatchAndOneNeighbour: one changed text, its
// claims kept, re-packs its own batch and at most the batch beside it
// (docs/contract.md#stable-batching), whether it grew, shrank or was
// rewritten whole, and under a renumbering too.
func TestStableChangeMovesItsBatchAndOneNeighbour(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and plans a 2,000-summary index; skipped with -short")
	}
	before, _ := reindexed(t)
	ctx := context.Background()
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(ctx, "before", before))
	e := &gs.Engine{Index: s, Runs: s}
	old := stablePlan(t, e, "before")
	changes := []struct {
		name   string
		change func(string) string
	}{
		{"grown by a sentence", func(s string) string { return s + " A later report revises this account after new documents arrived." }},
		{"shrunk by half", func(s string) string { return s[:len(s)/2] }},
		{"rewritten whole", func(s string) string { return strings.Repeat("A new account of the same events. ", len(s)/34) }},
	}
	for c, ch := range changes {
		for _, leaf := range []int{37, 401, 1234, 1999} {
			t.Run(fmt.Sprintf("%s, leaf %d", ch.name, leaf), func(t *testing.T) {
				id := fmt.Sprintf("leaf-%05d", leaf)
				after := gs.Records{Claims: before.Claims, Chunks: before.Chunks}
				for _, sum := range before.Summaries {
					if sum.ID == id {
						sum.Summary = ch.change(sum.Summary)
					}
					after.Summaries = append(after.Summaries, sum)
				}
				ns := fmt.Sprintf("changed-%d-%d", c, leaf)
				require.NoError(t, s.ReplaceNamespace(ctx, ns, renumber(after)))
				moved := movedBatches(old, stablePlan(t, e, ns))
				require.NotEmpty(t, moved, "the changed text's batch")
				assert.LessOrEqual(t, len(moved), 2, "its own batch and one neighbour at most: %v", moved)
				if len(moved) == 2 {
					assert.Equal(t, moved[0]+1, moved[1], "the neighbour is beside it")
				}
			})
		}
	}
}

// stablePlan plans namespace ns with stable batching at seed 7.
func stablePlan(t *testing.T, e *gs.Engine, ns string) gs.Plan {
	t.Helper()
	stable, seed := gs.BatchingStable, int64(7)
	req := gs.Request{Query: "What are the main themes?", Namespace: ns, Batching: &stable, ShuffleSeed: &seed}
	p, err := req.Params(gs.SpecDefaults)
	require.NoError(t, err)
	p.MaxModelCalls = 0
	plan, err := e.Plan(context.Background(), p)
	require.NoError(t, err)
	return plan
}

// movedBatches are the indexes of now's batches whose content old does not
// hold, headers' ids aside.
func movedBatches(old, now gs.Plan) []int {
	seen := map[string]bool{}
	for _, b := range old.Batches {
		seen[contentKey(b)] = true
	}
	var moved []int
	for i, b := range now.Batches {
		if !seen[contentKey(b)] {
			moved = append(moved, i)
		}
	}
	return moved
}
