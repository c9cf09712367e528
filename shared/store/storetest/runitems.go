package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// runItemKind is one kind of a run's work items with the tallies of its
// attempts: rating batches and ratings, reduce groups and group answers,
// and the map attempts no answer holds, which have neither rounds
// (maxRound 0) nor a work item of their own (save and read nil: their
// batch is the plan's).
type runItemKind struct {
	name               string
	maxRound, maxIndex int
	save               func(s Store, queryID string, round, index int) error
	read               func(s Store, queryID string, round, index int) error
	add                func(s Store, queryID string, round, index int) error
	tallies            func(s Store, queryID string) (int, error)
}

var runItemKinds = []runItemKind{
	{
		name: "rating", maxRound: globalsearch.MaxRatingRound, maxIndex: globalsearch.MaxRatingBatchIndex,
		save: func(s Store, q string, round, index int) error {
			return s.SaveRatingBatches(context.Background(), q, "r", []globalsearch.RatingBatch{{Round: round, Index: index}})
		},
		read: func(s Store, q string, round, index int) error {
			_, err := s.RatingBatch(context.Background(), q, "r", round, index)
			return err
		},
		add: func(s Store, q string, round, index int) error {
			return s.AddRating(context.Background(), q, "r", globalsearch.Rating{Round: round, BatchIndex: index, Calls: 1})
		},
		tallies: func(s Store, q string) (int, error) {
			got, err := s.Ratings(context.Background(), q, "r")
			return len(got), err
		},
	},
	{
		name: "reduce group", maxRound: globalsearch.MaxReduceRound, maxIndex: globalsearch.MaxReduceGroupIndex,
		save: func(s Store, q string, round, index int) error {
			return s.SaveReduceGroups(context.Background(), q, "r", []globalsearch.ReduceGroup{{Round: round, Index: index}})
		},
		read: func(s Store, q string, round, index int) error {
			_, err := s.ReduceGroup(context.Background(), q, "r", round, index)
			return err
		},
		add: func(s Store, q string, round, index int) error {
			return s.AddGroupAnswer(context.Background(), q, "r", globalsearch.GroupAnswer{Round: round, Index: index, Calls: 1})
		},
		tallies: func(s Store, q string) (int, error) {
			got, err := s.GroupAnswers(context.Background(), q, "r")
			return len(got), err
		},
	},
	{
		name: "map attempt", maxIndex: globalsearch.MaxBatchIndex,
		add: func(s Store, q string, _, index int) error {
			return s.AddMapAttempt(context.Background(), q, "r", globalsearch.MapAttempt{BatchIndex: index, Calls: 1})
		},
		tallies: func(s Store, q string) (int, error) {
			got, err := s.MapAttempts(context.Background(), q, "r")
			return len(got), err
		},
	},
}

// testRunItemKeys refuses, before any write, a round or index the runs
// table cannot key, for every kind of a run's work items; reading one
// finds nothing.
func testRunItemKeys(t *testing.T, s Store) {
	for _, kind := range runItemKinds {
		queryID := "q-keys-" + strings.ReplaceAll(kind.name, " ", "-")
		tests := []struct {
			name         string
			round, index int
		}{
			{"round 0", 0, 0},
			{"round past the keys", kind.maxRound + 1, 0},
			{"negative index", 1, -1},
			{"index past the keys", 1, kind.maxIndex + 1},
		}
		for _, tc := range tests {
			if kind.maxRound == 0 && tc.index >= 0 && tc.index <= kind.maxIndex {
				continue // a round out of range: a kind without rounds keys none
			}
			t.Run(kind.name+"/"+tc.name, func(t *testing.T) {
				if kind.save != nil {
					err := kind.save(s, queryID, tc.round, tc.index)
					assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "save: %v", err)
					assertNotFound(t, kind.read(s, queryID, tc.round, tc.index), "a "+kind.name+" the store cannot key")
				}
				err := kind.add(s, queryID, tc.round, tc.index)
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "add: %v", err)
				assert.ErrorContains(t, err, "must be")
			})
		}
		n, err := kind.tallies(s, queryID)
		require.NoError(t, err)
		assert.Zero(t, n, "no %s was written", kind.name)
	}
}
