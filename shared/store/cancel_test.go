package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// TestCancelResultErrors: a cancel whose update fails, or whose refused
// condition cannot be read back, is the store's error and leaves the run
// running; the update is one conditional UpdateItem.
func TestCancelResultErrors(t *testing.T) {
	ctx := context.Background()
	real := testenv.Minidyn(t)
	tables := newTables(t, real)
	boom := errors.New("boom")
	params := globalsearch.Params{Query: "q", Namespace: "default"}
	tests := []struct {
		name    string
		refused bool // the update's condition fails (a finished run)
		setup   func(f *fakeClient)
		wantErr error
		calls   map[string]int
	}{
		{"the update fails", false, func(f *fakeClient) {
			f.updateItem = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) { return nil, boom }
		}, boom, map[string]int{"UpdateItem": 1}},
		{"the read after a refused condition fails", true, func(f *fakeClient) {
			f.getItem = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) { return nil, boom }
		}, boom, map[string]int{"UpdateItem": 1, "GetItem": 1}},
		{"a plain cancel", false, func(*fakeClient) {}, nil, map[string]int{"UpdateItem": 1}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := "q-" + string(rune('a'+i))
			p := params
			p.QueryID = id
			plain := newRuns(t, real, tables.Runs)
			_, _, err := plain.CreateRequest(ctx, p, "")
			require.NoError(t, err)
			if tc.refused {
				require.NoError(t, plain.SaveResult(ctx, globalsearch.Result{QueryID: id, Status: globalsearch.StatusCompleted}, ""))
			}
			fake := &fakeClient{next: real}
			tc.setup(fake)
			err = newRuns(t, fake, tables.Runs).CancelResult(ctx, globalsearch.CancelledResult(p, time.Now()), id)
			assert.Equal(t, tc.calls, fake.Calls())
			res, rerr := plain.Result(ctx, id)
			if tc.wantErr == nil {
				require.NoError(t, err)
				require.NoError(t, rerr)
				assert.Equal(t, globalsearch.StatusCancelled, res.Status)
				return
			}
			assert.ErrorIs(t, err, tc.wantErr)
			var cond *types.ConditionalCheckFailedException
			assert.False(t, errors.As(err, &cond), "a refused condition is never the error itself")
			if tc.refused {
				require.NoError(t, rerr)
				assert.Equal(t, globalsearch.StatusCompleted, res.Status, "the finished run keeps its result")
			} else {
				assert.ErrorIs(t, rerr, globalsearch.ErrNotFound, "still running: no result")
			}
		})
	}
}
