package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
)

// BenchmarkSelectionSpend measures what each way of choosing communities
// spends with the offline model (docs/dynamic-selection.md and
// docs/cost.md, spending less): map input tokens and model calls of the leaf plan, of level
// "auto" at two ceilings, and of dynamic selection, with its rating calls
// against the communities it rated (one call per community is the peer's
// cost), for a targeted and a generic question. It runs on the Christmas
// Carol output and, when BENCH_INDEX names a generated index (make
// bench-plan writes one), on that too. Run it with -benchtime 1x: each
// iteration is a whole search.
func BenchmarkSelectionSpend(b *testing.B) {
	type index struct {
		name, flag, dir   string
		targeted, generic string
		autoHigh, autoLow string
		extra             []string
	}
	indexes := []index{{name: "carol", flag: "--graphrag", dir: corpus.Dir(b, corpus.ChristmasCarol),
		targeted: "Who is Tiny Tim?", generic: "What are the main themes of the story?", autoHigh: "65000", autoLow: "55000"}}
	if path := os.Getenv("BENCH_INDEX"); path != "" {
		indexes = append(indexes, index{name: "generated", flag: "--index", dir: path,
			targeted: "Why did Maren Vollan tour the breakwaters?", generic: "What changed over the decade?",
			autoHigh: "9000000", autoLow: "5000000", extra: []string{"--max-model-calls", "5000"}})
	}
	modes := []struct {
		name string
		args func(ix index) []string
	}{
		{"leaf", func(index) []string { return nil }},
		{"auto-high", func(ix index) []string { return []string{"--level", "auto", "--max-map-tokens", ix.autoHigh} }},
		{"auto-low", func(ix index) []string { return []string{"--level", "auto", "--max-map-tokens", ix.autoLow} }},
		{"dynamic", func(index) []string { return []string{"--selection", "dynamic"} }},
	}
	for _, ix := range indexes {
		for _, q := range []struct{ name, query string }{{"targeted", ix.targeted}, {"generic", ix.generic}} {
			for _, m := range modes {
				b.Run(ix.name+"/"+q.name+"/"+m.name, func(b *testing.B) {
					args := append([]string{"run", ix.flag, ix.dir, "--query", q.query, "--seed", "1", "--no-cache", "--json"}, ix.extra...)
					args = append(args, m.args(ix)...)
					var res globalsearch.Result
					for b.Loop() {
						env, out, errOut := testEnv("")
						if code := runMain(context.Background(), env, args); code != 0 {
							b.Fatalf("exit %d: %s", code, errOut.String())
						}
						if err := json.Unmarshal(out.Bytes(), &res); err != nil {
							b.Fatal(err)
						}
					}
					mapInput := 0
					for _, bt := range res.Diagnostics.Batches {
						mapInput += bt.EstimatedTokens
					}
					b.ReportMetric(float64(mapInput), "map-input-tokens")
					b.ReportMetric(float64(len(res.Diagnostics.Batches)), "map-batches")
					b.ReportMetric(float64(res.Diagnostics.ModelCalls), "model-calls")
					if s := res.Diagnostics.Selection; s.RatingCalls > 0 {
						b.ReportMetric(float64(s.RatingCalls), "rating-calls")
						b.ReportMetric(float64(s.Rated), "rated")
						b.ReportMetric(float64(s.RatingInputTokens), "rating-input-tokens")
						if s.LeafMapInputTokens > 0 {
							// What the selection sent, its rating input counted.
							b.ReportMetric(100*float64(s.InputTokens())/float64(s.LeafMapInputTokens), "%-of-leaf-map-input")
						}
					}
				})
			}
		}
	}
}
