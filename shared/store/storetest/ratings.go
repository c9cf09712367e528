package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// testRatings stores a dynamic selection's rating batches and ratings
// (docs/contract.md#dynamic-selection): batches read back by run, round
// and index; every attempt adds its call and tokens; the scores of the
// attempt that succeeded stay; nothing of one run is read as another's.
func testRatings(t *testing.T, s Store) {
	ctx := context.Background()
	plan := samplePlan("q-rate", 0)
	require.NoError(t, s.SavePlan(ctx, plan))
	run := plan.RunID
	batches := []globalsearch.RatingBatch{
		{Round: 1, Index: 0, CommunityIDs: []string{"a", "b"}, Content: "A\nabout a\n\nB\nabout b 中文"},
		{Round: 1, Index: 1, CommunityIDs: []string{"c"}, Content: "C\nabout c"},
	}
	require.NoError(t, s.SaveRatingBatches(ctx, "q-rate", run, batches))
	require.NoError(t, s.SaveRatingBatches(ctx, "q-rate", run, []globalsearch.RatingBatch{{Round: 2, Index: 0, CommunityIDs: []string{"a1"}, Content: "A1"}}))
	for _, b := range batches {
		got, err := s.RatingBatch(ctx, "q-rate", run, b.Round, b.Index)
		require.NoError(t, err)
		assert.Equal(t, b, got)
	}
	_, err := s.RatingBatch(ctx, "q-rate", "other-run", 1, 0)
	assertNotFound(t, err, "a rating batch of another run")
	_, err = s.RatingBatch(ctx, "q-rate", run, 1, 2)
	assertNotFound(t, err, "a rating batch never saved")

	attempts := []globalsearch.Rating{
		{Round: 1, BatchIndex: 1, Calls: 1, InputTokens: 10, Error: "model output: not JSON"},
		{Round: 1, BatchIndex: 0, Calls: 1, InputTokens: 30, OutputTokens: 5, Rated: true, Scores: map[string]float64{"a": 4, "b": 0}, UnknownIDs: 1},
		{Round: 1, BatchIndex: 1, Calls: 1, InputTokens: 12, Error: "model: throttled", ErrorKind: globalsearch.KindThrottled},
		{Round: 2, BatchIndex: 0, Calls: 1, InputTokens: 7, OutputTokens: 2, Rated: true, Scores: map[string]float64{}},
	}
	for _, a := range attempts {
		require.NoError(t, s.AddRating(ctx, "q-rate", run, a))
	}
	require.NoError(t, s.AddRating(ctx, "q-rate", "other-run", globalsearch.Rating{Round: 1, BatchIndex: 0, Calls: 1, Rated: true, Scores: map[string]float64{"z": 5}}))
	got, err := s.Ratings(ctx, "q-rate", run)
	require.NoError(t, err)
	for i := range got {
		if len(got[i].Scores) == 0 {
			got[i].Scores = nil // empty and absent mean the same
		}
	}
	assert.Equal(t, []globalsearch.Rating{
		{Round: 1, BatchIndex: 0, Calls: 1, InputTokens: 30, OutputTokens: 5, Rated: true, Scores: map[string]float64{"a": 4, "b": 0}, UnknownIDs: 1},
		{Round: 1, BatchIndex: 1, Calls: 2, InputTokens: 22, Error: "model: throttled", ErrorKind: globalsearch.KindThrottled},
		{Round: 2, BatchIndex: 0, Calls: 1, InputTokens: 7, OutputTokens: 2, Rated: true},
	}, got)
	next := samplePlan("q-rate", 0)
	next.RunID = "run-q-rate-next"
	require.NoError(t, s.SavePlan(ctx, next))
	_, err = s.RatingBatch(ctx, "q-rate", run, 1, 0)
	assertNotFound(t, err, "a rating batch of a replaced run")
	none, err := s.Ratings(ctx, "q-rate-none", run)
	require.NoError(t, err)
	assert.Empty(t, none, "ratings are per query id")
}
