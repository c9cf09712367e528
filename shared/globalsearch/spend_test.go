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

// failingSpend is a store one of whose reads fails.
type failingSpend struct {
	*memstore.Store
	plan, answers, reduce, ratings, groups, attempts bool
}

func (s failingSpend) MapAttempts(ctx context.Context, id, run string) ([]gs.MapAttempt, error) {
	if s.attempts {
		return nil, errUnreachable
	}
	return s.Store.MapAttempts(ctx, id, run)
}

func (s failingSpend) Ratings(ctx context.Context, id, run string) ([]gs.Rating, error) {
	if s.ratings {
		return nil, errUnreachable
	}
	return s.Store.Ratings(ctx, id, run)
}

func (s failingSpend) GroupAnswers(ctx context.Context, id, run string) ([]gs.GroupAnswer, error) {
	if s.groups {
		return nil, errUnreachable
	}
	return s.Store.GroupAnswers(ctx, id, run)
}

var errUnreachable = errors.New("table unreachable")

func (s failingSpend) PlanMeta(ctx context.Context, id string) (gs.Plan, error) {
	if s.plan {
		return gs.Plan{}, errUnreachable
	}
	return s.Store.PlanMeta(ctx, id)
}

func (s failingSpend) MapAnswers(ctx context.Context, id, run string) ([]gs.MapAnswer, error) {
	if s.answers {
		return nil, errUnreachable
	}
	return s.Store.MapAnswers(ctx, id, run)
}

func (s failingSpend) ReduceCalls(ctx context.Context, id, run string) (int, error) {
	if s.reduce {
		return 0, errUnreachable
	}
	return s.Store.ReduceCalls(ctx, id, run)
}

// TestStoredSpend: what a run spent is read from its plan, map answers and
// reduce calls (docs/contract.md#cancel); a query with no plan spent
// nothing stored, and a failed read is an error naming what failed.
func TestStoredSpend(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	_, _, err := s.CreateRequest(ctx, gs.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, "")
	require.NoError(t, err)
	p := gs.Plan{RunID: "run-1", Params: gs.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, SummaryCount: 4,
		Selection: &gs.SelectionReport{RatingCalls: 2, RatingInputTokens: 50, RatingOutputTokens: 5}}
	for i := range 3 {
		p.Batches = append(p.Batches, gs.Batch{Index: i, CommunityIDs: []string{"c"}, Content: "x"})
	}
	require.NoError(t, s.SavePlan(ctx, p))
	require.NoError(t, s.SaveMapAnswer(ctx, "q-1", "run-1", gs.MapAnswer{BatchIndex: 1, Answer: "a", Attempts: 2, InputTokens: 100, OutputTokens: 10}))
	_, err = s.AddReduceCall(ctx, "q-1", "run-1")
	require.NoError(t, err)
	prices := &gs.Prices{Map: gs.Price{In: 1, Out: 1}, Reduce: gs.Price{In: 1, Out: 1}}

	d, err := gs.StoredSpend(ctx, s, prices, "q-1")
	require.NoError(t, err)
	assert.Equal(t, 2+2+1, d.ModelCalls, "rating, map and reduce calls")
	assert.Equal(t, 150, d.InputTokens)
	assert.Equal(t, 15, d.OutputTokens)
	assert.Equal(t, 3, d.BatchCount)
	assert.Equal(t, 4, d.SummaryCount)
	require.NotNil(t, d.Cost)
	assert.Positive(t, d.Cost.Total())
	assert.Contains(t, d.SpendLine(), "5 model calls (rating 2, map 2, reduce 1), tokens in 150 out 15, cost ~$")

	none, err := gs.StoredSpend(ctx, s, nil, "q-unplanned")
	require.NoError(t, err)
	assert.Zero(t, none.ModelCalls, "no plan: nothing stored was spent")

	for _, tc := range []struct {
		name string
		src  failingSpend
		want string
	}{
		{"plan", failingSpend{Store: s, plan: true}, "load plan"},
		{"map answers", failingSpend{Store: s, answers: true}, "load map answers"},
		{"map attempts", failingSpend{Store: s, attempts: true}, "load map attempts"},
		{"reduce calls", failingSpend{Store: s, reduce: true}, "load reduce calls"},
		{"group answers", failingSpend{Store: s, groups: true}, "load group answers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gs.StoredSpend(ctx, tc.src, nil, "q-1")
			require.ErrorIs(t, err, errUnreachable)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestRunSpendCountsTheSteps: a selection still rating (its plan counts no
// rating call yet) reports its ratings' calls and tokens, a tree reduce's
// group attempts are reduce calls, and a run that is not the query id's
// current one claims nothing of it (docs/contract.md#cancel).
func TestRunSpendCountsTheSteps(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	p := gs.Params{QueryID: "q-steps", Query: "q", Namespace: "a"}
	_, _, err := s.CreateRequest(ctx, p, "")
	require.NoError(t, err)
	require.NoError(t, s.SavePlan(ctx, gs.Plan{RunID: "run-1", Params: p, Selection: &gs.SelectionReport{MostRatingCalls: 4}}))
	require.NoError(t, s.SaveRatingBatches(ctx, "q-steps", "run-1", []gs.RatingBatch{
		{Round: 1, Index: 0, CommunityIDs: []string{"c0"}, Content: "x"}, {Round: 1, Index: 1, CommunityIDs: []string{"c1"}, Content: "y"}}))
	for i, calls := range []int{1, 2} {
		for range calls {
			require.NoError(t, s.AddRating(ctx, "q-steps", "run-1", gs.Rating{Round: 1, BatchIndex: i, Calls: 1, InputTokens: 40, OutputTokens: 4}))
		}
	}
	require.NoError(t, s.SaveReduceGroups(ctx, "q-steps", "run-1", []gs.ReduceGroup{{Round: 1, Index: 0, Candidates: []gs.Candidate{{CommunityIDs: []string{"c0"}, Answer: "a", Usefulness: 50}}}}))
	require.NoError(t, s.AddGroupAnswer(ctx, "q-steps", "run-1", gs.GroupAnswer{Round: 1, Index: 0, Calls: 1, InputTokens: 70, OutputTokens: 7}))

	d, err := gs.RunSpend(ctx, s, nil, "q-steps", "run-1")
	require.NoError(t, err)
	assert.Equal(t, 3, d.Selection.RatingCalls, "every rating attempt")
	assert.Equal(t, 120, d.Selection.RatingInputTokens)
	assert.Equal(t, 1, d.Reduce.ModelCalls, "the group attempt")
	assert.Equal(t, 70, d.Reduce.InputTokens)
	assert.Equal(t, 4, d.ModelCalls)
	assert.Equal(t, 190, d.InputTokens)
	assert.Equal(t, 19, d.OutputTokens)

	other, err := gs.RunSpend(ctx, s, nil, "q-steps", "run-0")
	require.NoError(t, err)
	assert.Zero(t, other.ModelCalls, "a replaced run claims nothing of the current one")

	_, err = gs.RunSpend(ctx, failingSpend{Store: s, ratings: true}, nil, "q-steps", "run-1")
	require.ErrorIs(t, err, errUnreachable)
	assert.Contains(t, err.Error(), "load ratings")
}
