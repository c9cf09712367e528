package offline_test

import (
	"context"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// BenchmarkMap measures the map stage on the largest batch a leaf-level
// search of the sample index plans under the default budget (about 7,500
// estimated tokens of content).
func BenchmarkMap(b *testing.B) {
	p := sampleParams(b, globalsearch.LeafLevel)
	plan := samplePlan(b, loadSample(b), p)
	content := plan.Batches[0].Content
	for _, bt := range plan.Batches {
		if len(bt.Content) > len(content) {
			content = bt.Content
		}
	}
	b.SetBytes(int64(len(content)))
	req := globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: p.Query, Content: content, Parts: globalsearch.MapParts(content), MaxTokens: p.MapOutputReserve}
	m := offline.New()
	ctx := context.Background()
	for b.Loop() {
		if _, err := m.Complete(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	// Reported after the loop: the testing package resets custom metrics
	// when the timed loop starts.
	b.ReportMetric(float64(tokens.Estimate(content)), "content-tokens")
}

// BenchmarkMapGeneric measures the map stage of generic questions, which
// score every summary sentence for their aspect, on the same batch.
func BenchmarkMapGeneric(b *testing.B) {
	p := sampleParams(b, globalsearch.LeafLevel)
	plan := samplePlan(b, loadSample(b), p)
	content := plan.Batches[0].Content
	for _, bt := range plan.Batches {
		if len(bt.Content) > len(content) {
			content = bt.Content
		}
	}
	for _, q := range []struct{ name, query string }{
		{"overview", "What is this corpus about?"},
		{"conflict", "What are the main conflicts?"},
		{"people", "Who are the key people and how do they relate?"},
		{"themes", "What are the main themes?"},
	} {
		query := q.query
		b.Run(q.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			req := globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: query, Content: content, Parts: globalsearch.MapParts(content), MaxTokens: p.MapOutputReserve}
			m := offline.New()
			for b.Loop() {
				if _, err := m.Complete(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
