package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// testMapAttempts stores the tallies of the map attempts no answer holds
// (docs/contract.md#failed-attempts): every attempt adds its calls and tokens,
// prompt-cache tokens included, even attempts made at once; the tallies
// read in batch order; nothing of one run or query id is read as
// another's, and a new run starts with none.
func testMapAttempts(t *testing.T, s Store) {
	ctx := context.Background()
	plan := samplePlan("q-attempts", 0)
	require.NoError(t, s.SavePlan(ctx, plan))
	run := plan.RunID
	attempts := []globalsearch.MapAttempt{
		{BatchIndex: 11, Calls: 1, InputTokens: 120, OutputTokens: 7, CacheReadInputTokens: 100, CacheWriteInputTokens: 3},
		{BatchIndex: 0, Calls: 1, InputTokens: 30, OutputTokens: 2},
		{BatchIndex: 11, Calls: 1, InputTokens: 125, OutputTokens: 9, CacheReadInputTokens: 100},
		{BatchIndex: 2, Calls: 1}, // a call that failed reports no tokens
	}
	for _, a := range attempts {
		require.NoError(t, s.AddMapAttempt(ctx, "q-attempts", run, a))
	}
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			assert.NoError(t, s.AddMapAttempt(ctx, "q-attempts", run, globalsearch.MapAttempt{BatchIndex: 2, Calls: 1, InputTokens: 1}))
		})
	}
	wg.Wait()
	require.NoError(t, s.AddMapAttempt(ctx, "q-attempts", "other-run", globalsearch.MapAttempt{BatchIndex: 0, Calls: 1, InputTokens: 999}))
	require.NoError(t, s.AddMapAttempt(ctx, "q-attempts-other", run, globalsearch.MapAttempt{BatchIndex: 0, Calls: 1, InputTokens: 999}))

	got, err := s.MapAttempts(ctx, "q-attempts", run)
	require.NoError(t, err)
	assert.Equal(t, []globalsearch.MapAttempt{
		{BatchIndex: 0, Calls: 1, InputTokens: 30, OutputTokens: 2},
		{BatchIndex: 2, Calls: 6, InputTokens: 5},
		{BatchIndex: 11, Calls: 2, InputTokens: 245, OutputTokens: 16, CacheReadInputTokens: 200, CacheWriteInputTokens: 3},
	}, got, "every attempt added, none lost to another at once")

	next := samplePlan("q-attempts", 0)
	next.RunID = "run-q-attempts-next"
	require.NoError(t, s.SavePlan(ctx, next))
	none, err := s.MapAttempts(ctx, "q-attempts", next.RunID)
	require.NoError(t, err)
	assert.Empty(t, none, "a new run has no tallies of the one it replaced")
	none, err = s.MapAttempts(ctx, "q-attempts-unplanned", run)
	require.NoError(t, err)
	assert.Empty(t, none, "tallies are per query id")
}
