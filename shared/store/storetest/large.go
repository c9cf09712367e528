package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The subtests that write more than 1 MB (SkipLarge leaves them out).

// largeText is n bytes of text; distinct per seed so nothing dedups it.
func largeText(seed string, n int) string {
	return (seed + " " + strings.Repeat("lorem ipsum dolor sit amet ", n/27+1))[:n]
}

func testLargeNamespace(t *testing.T, s Store) {
	ctx := context.Background()
	const n = 320 // 320 x 4 KB = 1.3 MB of each kind
	var r globalsearch.Records
	for i := range n {
		id := fmt.Sprintf("s%04d", i)
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: id, Level: 0, Summary: largeText(id, 4096)})
		r.Claims = append(r.Claims, globalsearch.Claim{
			ID: fmt.Sprintf("cl%04d", i), CommunityID: id, Subject: "s",
			Description: largeText(id, 4096), SourceChunkIDs: []string{fmt.Sprintf("ch%04d", i)},
		})
		r.Chunks = append(r.Chunks, globalsearch.Chunk{ID: fmt.Sprintf("ch%04d", i), Text: largeText(id, 4096)})
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "big", r))
	AssertNamespace(t, s, "big", r)

	// Replacing with a smaller set deletes the rest across many pages.
	r.Summaries, r.Claims, r.Chunks = r.Summaries[:10], r.Claims[:10], r.Chunks[:10]
	require.NoError(t, s.ReplaceNamespace(ctx, "big", r))
	AssertNamespace(t, s, "big", r)
}

func testLargeRuns(t *testing.T, s Store) {
	ctx := context.Background()
	const n = 300 // 300 x 4 KB = 1.2 MB of batches and as much of answers
	p := samplePlan("q-big", n)
	for i := range p.Batches {
		p.Batches[i].Content = largeText(fmt.Sprint(i), 4096)
		require.NoError(t, s.SaveMapAnswer(ctx, "q-big", p.RunID, sampleAnswer(i, largeText(fmt.Sprint(i), 4096))))
	}
	require.NoError(t, s.SavePlan(ctx, p))
	got, err := s.Plan(ctx, "q-big")
	require.NoError(t, err)
	assert.Equal(t, p, got)
	answers, err := s.MapAnswers(ctx, "q-big", p.RunID)
	require.NoError(t, err)
	require.Len(t, answers, n)
	for i, a := range answers {
		assert.Equal(t, sampleAnswer(i, largeText(fmt.Sprint(i), 4096)), a)
	}
}
