package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// ratingKey keys one rating batch of one run.
type ratingKey struct {
	run          runKey
	round, index int
}

// ratingRecords are the rating batches and ratings of dynamic selections
// (globalsearch.Selections), keyed by run as the runs table keys them.
type ratingRecords struct {
	mu      sync.Mutex
	batches map[ratingKey]globalsearch.RatingBatch
	ratings map[ratingKey]globalsearch.Rating
}

// dropRun forgets the rating batches and ratings of run.
func (r *ratingRecords) dropRun(run runKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	maps.DeleteFunc(r.batches, func(k ratingKey, _ globalsearch.RatingBatch) bool { return k.run == run })
	maps.DeleteFunc(r.ratings, func(k ratingKey, _ globalsearch.Rating) bool { return k.run == run })
}

// SaveRatingBatches implements globalsearch.Selections.
func (s *Store) SaveRatingBatches(_ context.Context, queryID, runID string, batches []globalsearch.RatingBatch) error {
	for _, b := range batches {
		if err := globalsearch.CheckRatingKey(queryID, b.Round, b.Index); err != nil {
			return err
		}
	}
	r := &s.rating
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.batches == nil {
		r.batches = map[ratingKey]globalsearch.RatingBatch{}
	}
	for _, b := range batches {
		b.CommunityIDs = slices.Clone(b.CommunityIDs)
		r.batches[ratingKey{runKey{queryID, runID}, b.Round, b.Index}] = b
	}
	return nil
}

// RatingBatch implements globalsearch.Selections.
func (s *Store) RatingBatch(_ context.Context, queryID, runID string, round, index int) (globalsearch.RatingBatch, error) {
	s.mu.RLock()
	current := s.plans[queryID].RunID
	s.mu.RUnlock()
	if current != runID {
		return globalsearch.RatingBatch{}, fmt.Errorf("rating batch %d of round %d of query %s: run %s is not the current run: %w", index, round, queryID, runID, globalsearch.ErrNotFound)
	}
	r := &s.rating
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.batches[ratingKey{runKey{queryID, runID}, round, index}]
	if !ok {
		return globalsearch.RatingBatch{}, fmt.Errorf("rating batch %d of round %d of query %s: %w", index, round, queryID, globalsearch.ErrNotFound)
	}
	b.CommunityIDs = slices.Clone(b.CommunityIDs)
	return b, nil
}

// AddRating implements globalsearch.Selections.
func (s *Store) AddRating(_ context.Context, queryID, runID string, a globalsearch.Rating) error {
	if err := globalsearch.CheckRatingKey(queryID, a.Round, a.BatchIndex); err != nil {
		return err
	}
	r := &s.rating
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ratings == nil {
		r.ratings = map[ratingKey]globalsearch.Rating{}
	}
	k := ratingKey{runKey{queryID, runID}, a.Round, a.BatchIndex}
	got := r.ratings[k]
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
	r.ratings[k] = got
	return nil
}

// Ratings implements globalsearch.Selections.
func (s *Store) Ratings(_ context.Context, queryID, runID string) ([]globalsearch.Rating, error) {
	r := &s.rating
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []globalsearch.Rating
	for k, a := range r.ratings {
		if k.run == (runKey{queryID, runID}) {
			a.Scores = maps.Clone(a.Scores)
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b globalsearch.Rating) int {
		return cmp.Or(cmp.Compare(a.Round, b.Round), cmp.Compare(a.BatchIndex, b.BatchIndex))
	})
	return out, nil
}
