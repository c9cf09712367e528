package store

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.Selections = (*Runs)(nil)

// SaveRatingBatches implements globalsearch.Selections: one item per
// batch, keyed by run, round and index (runitems.go's rules).
func (s *Runs) SaveRatingBatches(ctx context.Context, queryID, runID string, batches []globalsearch.RatingBatch) error {
	items := make([]runItem, len(batches))
	for i := range batches {
		b := batches[i]
		if err := globalsearch.CheckRatingKey(queryID, b.Round, b.Index); err != nil {
			return err
		}
		items[i] = runItem{QueryID: queryID, SK: ratingBatchSK(runID, b.Round, b.Index), RunID: runID, RatingBatch: &b}
	}
	return s.saveRunItems(ctx, queryID, runID, "save rating batches", items, func(it runItem) string {
		return ratingWhat("rating batch", queryID, it.RatingBatch.Round, it.RatingBatch.Index)
	})
}

// RatingBatch implements globalsearch.Selections: the current run's batch
// (currentRunItem).
func (s *Runs) RatingBatch(ctx context.Context, queryID, runID string, round, index int) (globalsearch.RatingBatch, error) {
	what := ratingWhat("rating batch", queryID, round, index)
	if err := globalsearch.CheckRatingKey(queryID, round, index); err != nil {
		return globalsearch.RatingBatch{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	it, err := s.currentRunItem(ctx, what, queryID, runID, ratingBatchSK(runID, round, index))
	if err != nil {
		return globalsearch.RatingBatch{}, err
	}
	if it.RatingBatch == nil {
		return globalsearch.RatingBatch{}, fmt.Errorf("%s has no rating batch: %w", what, globalsearch.ErrNotFound)
	}
	return *it.RatingBatch, nil
}

// AddRating implements globalsearch.Selections: one attempt's calls and
// tokens, and its scores or error (addAttempt).
func (s *Runs) AddRating(ctx context.Context, queryID, runID string, r globalsearch.Rating) error {
	if err := globalsearch.CheckRatingKey(queryID, r.Round, r.BatchIndex); err != nil {
		return err
	}
	what := ratingWhat("rating", queryID, r.Round, r.BatchIndex)
	var scores any
	if r.Rated {
		scores = globalsearch.Rating{Rated: true, Scores: r.Scores, UnknownIDs: r.UnknownIDs}
	}
	return s.addAttempt(ctx, queryID, runID, attemptTally{
		what: what, sk: ratingSK(runID, r.Round, r.BatchIndex), round: r.Round, index: r.BatchIndex,
		calls: r.Calls, inputTokens: r.InputTokens, outputTokens: r.OutputTokens,
		set: setOutcome(what, "rating", scores, "ratingError", r.Error, r.ErrorKind),
	})
}

// Ratings implements globalsearch.Selections: the run's rating items in
// round, then batch, order.
func (s *Runs) Ratings(ctx context.Context, queryID, runID string) ([]globalsearch.Rating, error) {
	items, err := s.tallies(ctx, "ratings of query "+queryID, queryID, runID, ratingPrefix(runID))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.Rating, 0, len(items))
	for _, it := range items {
		r := globalsearch.Rating{Round: *it.Round, BatchIndex: *it.BatchIndex, Calls: it.Calls,
			InputTokens: it.InTokens, OutputTokens: it.OutTokens, Error: it.RatingError, ErrorKind: globalsearch.Kind(it.RatingErrorKind)}
		if it.Rating != nil && it.Rating.Rated {
			r.Rated, r.Scores, r.UnknownIDs = true, it.Rating.Scores, it.Rating.UnknownIDs
		}
		out = append(out, r)
	}
	return out, nil
}

func ratingWhat(kind, queryID string, round, index int) string {
	return fmt.Sprintf("%s %d of round %d of query %s", kind, index, round, queryID)
}
