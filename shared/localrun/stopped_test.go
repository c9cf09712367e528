package localrun

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// TestStoppedRunsRefuseTheReduceRoundsWrites: once the execution stops, a
// search between two steps of a reduce in rounds saves no group and no
// group answer (docs/contract.md#reduce-rounds), as it saves no map
// answer; before the stop both reach the store.
func TestStoppedRunsRefuseTheReduceRoundsWrites(t *testing.T) {
	ctx := context.Background()
	stop := errors.New("cancelled by the user")
	for _, tc := range []struct {
		name    string
		stopped bool
		wantErr error
		want    int // groups and answers stored
	}{
		{"running", false, nil, 1},
		{"stopped", true, stop, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := memstore.New()
			f, err := memstoreRun(ctx, s)
			require.NoError(t, err)
			run, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			if tc.stopped {
				cancel(stop)
			}
			r := stoppedRuns{Runs: s, run: run}
			group := globalsearch.ReduceGroup{Round: 1, Index: 0, Candidates: []globalsearch.Candidate{{Answer: "a", Usefulness: 50, CommunityIDs: []string{"c"}}}}
			assert.ErrorIs(t, r.SaveReduceGroups(ctx, f.Params.QueryID, f.RunID, []globalsearch.ReduceGroup{group}), tc.wantErr)
			assert.ErrorIs(t, r.AddGroupAnswer(ctx, f.Params.QueryID, f.RunID, globalsearch.GroupAnswer{Round: 1, Index: 0, Done: true, Answer: "a", Calls: 1}), tc.wantErr)

			_, err = s.ReduceGroup(ctx, f.Params.QueryID, f.RunID, 1, 0)
			if tc.want == 0 {
				assert.ErrorIs(t, err, globalsearch.ErrNotFound, "no group saved")
			} else {
				assert.NoError(t, err)
			}
			answers, err := s.GroupAnswers(ctx, f.Params.QueryID, f.RunID)
			require.NoError(t, err)
			assert.Len(t, answers, tc.want)
		})
	}
}

// memstoreRun saves a plan of one run in s, whose groups the test writes.
func memstoreRun(ctx context.Context, s *memstore.Store) (globalsearch.Plan, error) {
	p := globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "ns"}
	if _, _, err := s.CreateRequest(ctx, p, "q-1"); err != nil {
		return globalsearch.Plan{}, err
	}
	plan := globalsearch.Plan{Params: p, RunID: "run-1", Owner: "q-1"}
	return plan, s.SavePlan(ctx, plan)
}
