package globalsearch_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// chainRecords is a single parent chain of depth summaries, c0 the root and
// the deepest one the only leaf, which holds one claim citing one chunk:
// the shape on which communityLevel "auto" was quadratic in depth.
func chainRecords(depth int) globalsearch.Records {
	var r globalsearch.Records
	for i := range depth {
		s := globalsearch.Summary{ID: fmt.Sprintf("c%06d", i), Level: i, Summary: fmt.Sprintf("summary %d", i)}
		if i > 0 {
			s.ParentCommunityID = fmt.Sprintf("c%06d", i-1)
		}
		r.Summaries = append(r.Summaries, s)
	}
	leaf := r.Summaries[depth-1].ID
	r.Claims = []globalsearch.Claim{{ID: "k", CommunityID: leaf, Subject: "s", Description: "d", SourceChunkIDs: []string{"ch"}}}
	r.Chunks = []globalsearch.Chunk{{ID: "ch", Text: "an excerpt"}}
	return r
}

// communityLevel "auto" on a 50,000-deep chain plans in about a second
// (docs/contract.md#auto-level); walking down from every summary took
// minutes. The bound is sixty times that, for a loaded machine and -race.
func TestAutoLevelDeepChainIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a 50,000-summary index; runs without -short")
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), "bench", chainRecords(50_000)); err != nil {
		t.Fatal(err)
	}
	p := benchParams(globalsearch.AutoLevel, "chain")
	p.MaxMapInputTokens = math.MaxInt32
	done := make(chan error, 1)
	go func() {
		plan, err := (&globalsearch.Engine{Index: s}).Plan(context.Background(), p)
		if err == nil && (plan.AutoLevel == nil || len(plan.AutoLevel.Ladder) != 50_000) {
			err = fmt.Errorf("want a ladder of 50,000 rungs (the leaf and every level above it), got %+v", plan.AutoLevel)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("planning communityLevel auto on a 50,000-deep chain took over 60 s")
	}
}

// BenchmarkAutoLevelDeepChain plans communityLevel "auto" on single parent
// chains (docs/contract.md#auto-level): the ladder must cost time linear in
// the summaries plus the levels. -benchtime=1x gives the figures.
func BenchmarkAutoLevelDeepChain(b *testing.B) {
	for _, depth := range []int{20_000, 100_000} {
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			s := memstore.New()
			if err := s.ReplaceNamespace(context.Background(), "bench", chainRecords(depth)); err != nil {
				b.Fatal(err)
			}
			e := &globalsearch.Engine{Index: s}
			p := benchParams(globalsearch.AutoLevel, "bench-chain")
			p.MaxMapInputTokens = math.MaxInt32
			for b.Loop() {
				plan, err := e.Plan(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				if plan.AutoLevel == nil || plan.AutoLevel.LevelUsed != globalsearch.LeafLevel {
					b.Fatalf("want the leaf rung, got %+v", plan.AutoLevel)
				}
			}
		})
	}
}
