package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// TestMapProgressCountsRecordedFailures: failed is the count of the
// current run's failure records (the shape RecordBatchFailure writes),
// expired and other runs' left out; the read is the plan item and two
// Select COUNT queries, whatever the batch count, on both emulators.
func TestMapProgressCountsRecordedFailures(t *testing.T) {
	backends := freshBackends()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := context.Background()
			real := be.client(t)
			tables := newTables(t, real)
			fake := &fakeClient{next: real}
			// First with a page limit below the item count: the counts
			// cross pages.
			s := newRuns(t, fake, tables.Runs, store.WithQueryLimit(2))
			plan := globalsearch.Plan{RunID: "run1", Params: globalsearch.Params{QueryID: "q1", Query: "q", Namespace: "default"}}
			for i := range 7 {
				plan.Batches = append(plan.Batches, globalsearch.Batch{Index: i, CommunityIDs: []string{"c"}, Content: "text", EstimatedTokens: 10})
			}
			require.NoError(t, s.SavePlan(ctx, plan))
			for _, i := range []int{0, 1, 4} {
				require.NoError(t, s.SaveMapAnswer(ctx, "q1", "run1", globalsearch.MapAnswer{BatchIndex: i, Answer: "a"}))
			}
			later, earlier := time.Now().Add(time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
			for _, it := range []map[string]types.AttributeValue{
				failureItem("q1", "run1", 2, "ModelError", later),
				failureItem("q1", "run1", 3, "States.Timeout", later),
				failureItem("q1", "run1", 5, "ModelError", earlier), // expired
				failureItem("q1", "run10", 6, "ModelError", later),  // another run, its id a prefix-sibling
				failureItem("q2", "run1", 6, "ModelError", later),   // another query
			} {
				_, err := real.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tables.Runs), Item: it})
				require.NoError(t, err)
			}
			var selects []types.Select
			fake.query = func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
				selects = append(selects, in.Select)
				return real.Query(ctx, in)
			}
			want := globalsearch.MapProgress{Done: 3, Failed: 2, Total: 7}
			got, err := s.MapProgress(ctx, "q1")
			require.NoError(t, err)
			assert.Equal(t, want, got, "counted across pages")
			// Without a page limit: the plan item and one query per count.
			fake.Reset()
			selects = nil
			got, err = newRuns(t, fake, tables.Runs).MapProgress(ctx, "q1")
			require.NoError(t, err)
			assert.Equal(t, want, got)
			calls := fake.Calls()
			assert.Equal(t, 1, calls["GetItem"], "one read of the plan item")
			assert.Equal(t, 2, calls["Query"], "one counting query for answers, one for failures")
			assert.Equal(t, []types.Select{types.SelectCount, types.SelectCount}, selects, "every query counts")
		})
	}
}

// TestMapProgressErrors: no plan is not found; a failing read is the
// store's error, not a made-up count.
func TestMapProgressErrors(t *testing.T) {
	ctx := context.Background()
	real := testenv.Minidyn(t)
	tables := newTables(t, real)
	boom := errors.New("boom")
	tests := []struct {
		name  string
		setup func(f *fakeClient)
		check func(t *testing.T, err error)
	}{
		{"no plan", func(*fakeClient) {}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, globalsearch.ErrNotFound)
		}},
		{"the plan read fails", func(f *fakeClient) {
			f.getItem = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) { return nil, boom }
		}, func(t *testing.T, err error) { assert.ErrorIs(t, err, boom) }},
		{"a count fails", func(f *fakeClient) {
			f.query = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) { return nil, boom }
		}, func(t *testing.T, err error) { assert.ErrorIs(t, err, boom) }},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := string(rune('a' + i))
			if i > 0 {
				require.NoError(t, newRuns(t, real, tables.Runs).SavePlan(ctx, globalsearch.Plan{RunID: "r", Params: globalsearch.Params{QueryID: id, Query: "q", Namespace: "default"}}))
			}
			fake := &fakeClient{next: real}
			tc.setup(fake)
			_, err := newRuns(t, fake, tables.Runs).MapProgress(ctx, id)
			require.Error(t, err)
			tc.check(t, err)
		})
	}
}
