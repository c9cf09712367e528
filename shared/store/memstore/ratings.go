package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// ratingRecords are the rating batches and ratings of dynamic selections
// (globalsearch.Selections).
type ratingRecords = runItems[globalsearch.RatingBatch, globalsearch.Rating]

func cloneRatingBatch(b globalsearch.RatingBatch) globalsearch.RatingBatch {
	b.CommunityIDs = slices.Clone(b.CommunityIDs)
	return b
}

func cloneRating(r globalsearch.Rating) globalsearch.Rating {
	r.Scores = maps.Clone(r.Scores)
	return r
}

// SaveRatingBatches implements globalsearch.Selections.
func (s *Store) SaveRatingBatches(_ context.Context, queryID, runID string, batches []globalsearch.RatingBatch) error {
	for _, b := range batches {
		if err := globalsearch.CheckRatingKey(queryID, b.Round, b.Index); err != nil {
			return err
		}
	}
	s.rating.save(runKey{queryID, runID}, batches, func(b globalsearch.RatingBatch) (int, int) { return b.Round, b.Index }, cloneRatingBatch)
	return nil
}

// RatingBatch implements globalsearch.Selections.
func (s *Store) RatingBatch(_ context.Context, queryID, runID string, round, index int) (globalsearch.RatingBatch, error) {
	what := fmt.Sprintf("rating batch %d of round %d of query %s", index, round, queryID)
	return s.rating.item(runKey{queryID, runID}, s.currentRun(queryID), round, index, what, cloneRatingBatch)
}

// AddRating implements globalsearch.Selections.
func (s *Store) AddRating(_ context.Context, queryID, runID string, a globalsearch.Rating) error {
	if err := globalsearch.CheckRatingKey(queryID, a.Round, a.BatchIndex); err != nil {
		return err
	}
	s.rating.add(runKey{queryID, runID}, a.Round, a.BatchIndex, func(got *globalsearch.Rating) {
		got.Round, got.BatchIndex = a.Round, a.BatchIndex
		got.Calls += a.Calls
		got.InputTokens += a.InputTokens
		got.OutputTokens += a.OutputTokens
		if a.Rated {
			got.Rated, got.Scores, got.UnknownIDs = true, maps.Clone(a.Scores), a.UnknownIDs
		}
		if a.Error != "" {
			got.Error, got.ErrorKind = a.Error, a.ErrorKind
		}
	})
	return nil
}

// Ratings implements globalsearch.Selections.
func (s *Store) Ratings(_ context.Context, queryID, runID string) ([]globalsearch.Rating, error) {
	return s.rating.list(runKey{queryID, runID}, cloneRating), nil
}
