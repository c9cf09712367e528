package offline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// BenchmarkMap measures the map stage on one full batch of the sample index
// under the default budget (about 7,500 estimated tokens of content).
func BenchmarkMap(b *testing.B) {
	f := loadSample(b)
	var items []batch.Item
	for _, s := range f.Summaries {
		items = append(items, batch.Item{ID: s.ID, Text: mapText(f, s)})
	}
	batches, err := batch.Pack("Question: "+globalQuestion, defaultMapPromptBudget, items)
	require.NoError(b, err)
	content := batches[0].Content
	for _, bt := range batches {
		if len(bt.Content) > len(content) {
			content = bt.Content
		}
	}
	b.SetBytes(int64(len(content)))
	req := globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: globalQuestion, Content: content, Parts: globalsearch.MapParts(content), MaxTokens: 512}
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
