package memstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return memstore.New() })
}

func TestStandingConformance(t *testing.T) {
	storetest.RunStanding(t, func(*testing.T) globalsearch.Standing { return memstore.New() })
}

// A record the store holds but cannot decode is an error naming it, kept
// until a reset (docs/contract.md#standing-questions).
func TestStandingUnreadable(t *testing.T) {
	damages := map[string]func(old []byte) []byte{
		"garbage":       func([]byte) []byte { return []byte("not a record") },
		"half a record": func(old []byte) []byte { return old[:len(old)/2] },
		"empty":         func([]byte) []byte { return nil },
	}
	kinds := []string{"garbage", "half a record", "empty"}
	storetest.RunStandingUnreadable(t, kinds, func(t *testing.T, kind string) (globalsearch.Standing, func(string, string)) {
		s := memstore.New()
		return s, func(ns, name string) { s.SetStandingBytes(ns, name, damages[kind](s.StandingBytes(ns, name))) }
	})
}

// A replaced run's ratings are dropped with its answers: nothing in the
// store expires, and a long-lived process would keep them all.
func TestReplacedRunDropsItsRatings(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	first := globalsearch.Plan{RunID: "run-1", Params: globalsearch.Params{QueryID: "q", Query: "q", Namespace: "default"}}
	require.NoError(t, s.SavePlan(ctx, first))
	require.NoError(t, s.SaveRatingBatches(ctx, "q", "run-1", []globalsearch.RatingBatch{{Round: 1, Index: 0, CommunityIDs: []string{"a"}, Content: "A"}}))
	require.NoError(t, s.AddRating(ctx, "q", "run-1", globalsearch.Rating{Round: 1, BatchIndex: 0, Calls: 1, Rated: true, Scores: map[string]float64{"a": 3}}))

	second := first
	second.RunID = "run-2"
	require.NoError(t, s.SavePlan(ctx, second))
	got, err := s.Ratings(ctx, "q", "run-1")
	require.NoError(t, err)
	assert.Empty(t, got)

	continued := second
	continued.Continues = true
	require.NoError(t, s.SaveRatingBatches(ctx, "q", "run-2", []globalsearch.RatingBatch{{Round: 1, Index: 0, CommunityIDs: []string{"a"}, Content: "A"}}))
	require.NoError(t, s.SavePlan(ctx, continued))
	_, err = s.RatingBatch(ctx, "q", "run-2", 1, 0)
	assert.NoError(t, err, "a run continued keeps its own ratings")
}
