package globalsearch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// A step of a dynamic selection given no run or an impossible round is
// invalid input before any read or call (docs/contract.md#selection-steps).
func TestSelectionStepsRefuseBadInput(t *testing.T) {
	model := &fakeModel{complete: rater(nil, nil)}
	e, _ := newEngine(t, forest(), model)
	tests := []struct {
		name string
		step func() error
	}{
		{"end of a round without a query id", func() error { _, err := e.SelectNext(context.Background(), "", "r", "", 1); return err }},
		{"end of a round without a run", func() error { _, err := e.SelectNext(context.Background(), "q", "", "", 1); return err }},
		{"end of round 0", func() error { _, err := e.SelectNext(context.Background(), "q", "r", "", 0); return err }},
		{"rating round 0", func() error { _, err := e.RateBatch(context.Background(), "q", "r", 0, 0, 1); return err }},
		{"rating a negative batch", func() error { _, err := e.RateBatch(context.Background(), "q", "r", 1, -1, 1); return err }},
		{"rating past the keys", func() error {
			_, err := e.RateBatch(context.Background(), "q", "r", gs.MaxRatingRound+1, 0, 1)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.step()
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err), err.Error())
		})
	}
	assert.Zero(t, model.count(gs.StageRate), "nothing was called")
}

// failingRatings is a runs store whose rating writes fail as told.
type failingRatings struct {
	*memstore.Store
	batches, ratings error
}

func (f failingRatings) SaveRatingBatches(ctx context.Context, queryID, runID string, b []gs.RatingBatch) error {
	if f.batches != nil {
		return f.batches
	}
	return f.Store.SaveRatingBatches(ctx, queryID, runID, b)
}

func (f failingRatings) AddRating(ctx context.Context, queryID, runID string, r gs.Rating) error {
	if f.ratings != nil {
		return f.ratings
	}
	return f.Store.AddRating(ctx, queryID, runID, r)
}

// A rating the store cannot keep is a rating lost: its batch counts as not
// rated (so a first round of such batches fails the run), and a round the
// store cannot save fails the run before any rating call.
func TestSelectionStoreFailures(t *testing.T) {
	down := gs.Errorf(gs.KindThrottled, "table busy")
	tests := []struct {
		name    string
		store   func(*memstore.Store) failingRatings
		wantErr string
	}{
		{"ratings not saved", func(s *memstore.Store) failingRatings { return failingRatings{Store: s, ratings: down} },
			"every rating batch of the root communities failed, so no community could be selected: no attempt of its batches was recorded"},
		{"rating batches not saved", func(s *memstore.Store) failingRatings { return failingRatings{Store: s, batches: down} },
			"save rating batches of "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: rater(map[string]int{"a": 4}, nil)}
			e, s := newEngine(t, forest(), model)
			e.Runs = tc.store(s)
			_, err := e.Search(context.Background(), dynamicParams(t, ""))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Zero(t, model.count(gs.StageMap), "nothing is mapped")
			if errors.Is(err, down) {
				assert.Zero(t, model.count(gs.StageRate), "no round was saved, so none was rated")
			}
		})
	}
}
