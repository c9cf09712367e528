package globalsearch_test

import (
	"context"
	"math"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// BenchmarkPrepareAuto measures communityLevel "auto" (docs/contract.md#auto-level)
// on the generated 10,000-summary index against the leaf plan: the time the
// ladder adds, and the map input and most model calls at two ceilings, the
// first just fitting level 1 and the second level 0. Run it with
// -benchtime=1x for the figures alone.
func BenchmarkPrepareAuto(b *testing.B) {
	store, _ := benchIndex()
	e := &globalsearch.Engine{Index: store, Runs: store}
	ctx := context.Background()
	ladderOf := benchParams(globalsearch.AutoLevel, "bench-auto")
	ladderOf.MaxMapInputTokens = math.MaxInt32
	probe, err := e.Plan(ctx, ladderOf)
	if err != nil {
		b.Fatal(err)
	}
	ladder := probe.AutoLevel.Ladder
	if len(ladder) != 3 {
		b.Fatalf("want the rungs leaf, 1 and 0, got %+v", ladder)
	}
	for _, bc := range []struct {
		name    string
		level   globalsearch.Level
		ceiling int
	}{
		{"leaf", globalsearch.LeafLevel, 0},
		{"auto-fits-level-1", globalsearch.AutoLevel, ladder[1].MapInputTokens},
		{"auto-fits-level-0", globalsearch.AutoLevel, ladder[2].MapInputTokens},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := benchParams(bc.level, "bench-auto")
			p.MaxMapInputTokens = bc.ceiling
			var plan globalsearch.Plan
			for b.Loop() {
				if plan, err = e.Plan(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(plan.SummaryCount), "summaries")
			b.ReportMetric(float64(len(plan.Batches)), "batches")
			b.ReportMetric(float64(plan.MapInputTokens()), "map-input-tokens")
			b.ReportMetric(float64(globalsearch.MostModelCalls(len(plan.Batches))), "most-model-calls")
			if plan.AutoLevel != nil {
				b.ReportMetric(float64(plan.AutoLevel.LevelUsed), "level-used")
			}
		})
	}
}
