package storetest

import (
	"context"
	"strings"
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

// testRatingKeys refuses, before any write, a round or index the runs
// table cannot key.
func testRatingKeys(t *testing.T, s Store) {
	ctx := context.Background()
	tests := []struct {
		name         string
		round, index int
	}{
		{"round 0", 0, 0},
		{"round past the keys", globalsearch.MaxRatingRound + 1, 0},
		{"negative index", 1, -1},
		{"index past the keys", 1, globalsearch.MaxRatingBatchIndex + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.SaveRatingBatches(ctx, "q-keys", "r", []globalsearch.RatingBatch{{Round: tc.round, Index: tc.index}})
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "save batches: %v", err)
			err = s.AddRating(ctx, "q-keys", "r", globalsearch.Rating{Round: tc.round, BatchIndex: tc.index, Calls: 1})
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "add rating: %v", err)
			assert.True(t, strings.Contains(err.Error(), "round must be"), err.Error())
		})
	}
	got, err := s.Ratings(ctx, "q-keys", "r")
	require.NoError(t, err)
	assert.Empty(t, got, "nothing was written")
}
