package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/limits"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// throttledPlan is a plan of n batches of about size bytes each, run run.
func throttledPlan(run string, n, size int) globalsearch.Plan {
	p := globalsearch.Plan{RunID: run, Params: globalsearch.Params{QueryID: "q", Query: run}, SummaryCount: n}
	for i := range n {
		p.Batches = append(p.Batches, globalsearch.Batch{RunID: run, Index: i, CommunityIDs: []string{fmt.Sprintf("c%05d", i)},
			Content: fmt.Sprintf("%s batch %d ", run, i) + strings.Repeat("x", size)})
	}
	return p
}

// limitedRuns is a runs table on minidyn behind the limits double at
// DynamoDB's rates, through the SDK's default retryer, with the store's
// backoff b.
func limitedRuns(t *testing.T, b store.Backoff, sdk ...func(*dynamodb.Options)) (*store.Runs, *limits.Double) {
	t.Helper()
	h, _ := testenv.MinidynHandler()
	d := limits.New(h, limits.AWS)
	client := d.DynamoDB(sdk...)
	require.NoError(t, store.CreateTables(t.Context(), client, store.Tables{Runs: "runs"}))
	return newRuns(t, client, "runs", store.WithBackoff(b)), d
}

// TestThrottledSavePlan: a plan saved into one partition at 1,000 write
// units a second is throttled; with the store's default backoff and the
// SDK's default retryer every write is retried to completion, in no less
// simulated time than the rate allows; a save that gives up switches
// nothing, so a search reads the previous plan whole, and the next save
// (prepare's retry) reads back whole (docs/contract.md#limits-model).
func TestThrottledSavePlan(t *testing.T) {
	cases := []struct {
		name    string
		backoff store.Backoff
		sdk     func(*dynamodb.Options)
		wantErr bool
	}{
		{name: "retried to completion", backoff: store.DefaultBackoff},
		{name: "given up: nothing switched", backoff: store.Backoff{Attempts: 1},
			sdk: func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var opts []func(*dynamodb.Options)
				if tc.sdk != nil {
					opts = append(opts, tc.sdk)
				}
				runs, d := limitedRuns(t, tc.backoff, opts...)
				ctx := t.Context()
				first := throttledPlan("run-1", 3, 100)
				require.NoError(t, runs.SavePlan(ctx, first))
				// 200 batches of 20 KB: 4,200 write units, 4 s at the rate.
				second := throttledPlan("run-2", 200, 20*1024)
				start := time.Now()
				err := runs.SavePlan(ctx, second)
				took := time.Since(start)
				stats := d.Stats()
				t.Logf("took %v, %+v", took, stats)
				require.Positive(t, stats.Throttled+stats.Unprocessed, "the save met the rate")
				if tc.wantErr {
					require.Error(t, err)
					assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err), "%v", err)
					assertPlan(t, runs, first)
					// Prepare's retry saves the same plan again.
					runs = newRuns(t, d.DynamoDB(), "runs")
					require.NoError(t, runs.SavePlan(ctx, second))
					assertPlan(t, runs, second)
					return
				}
				require.NoError(t, err)
				minimum := time.Duration((stats.WriteUnits["runs"] - limits.AWS.WriteUnits*limits.AWS.Burst.Seconds()) / limits.AWS.WriteUnits * float64(time.Second))
				assert.GreaterOrEqual(t, took, minimum, "no faster than the partition's rate")
				assertPlan(t, runs, second)
			})
		})
	}
}

// assertPlan checks that a search reads want whole: the plan, every batch
// through the plan and one by one.
func assertPlan(t *testing.T, runs *store.Runs, want globalsearch.Plan) {
	t.Helper()
	ctx := context.Background()
	got, err := runs.Plan(ctx, "q")
	require.NoError(t, err)
	assert.Equal(t, want.RunID, got.RunID)
	assert.Equal(t, want.Params.Query, got.Params.Query)
	require.Len(t, got.Batches, len(want.Batches))
	for i := range want.Batches {
		assert.Equal(t, want.Batches[i].Content, got.Batches[i].Content, "batch %d", i)
	}
	b, err := runs.Batch(ctx, "q", len(want.Batches)-1)
	require.NoError(t, err)
	assert.Equal(t, want.Batches[len(want.Batches)-1].Content, b.Content)
}

// TestThrottledBatchCallIsWaitedOut: a BatchWriteItem refused whole for
// load, after the SDK's own retries, counts as an attempt that wrote
// nothing: the store backs off and sends it again, and gives up only after
// its attempts without progress, with DynamoDB's error; any other error
// stops the save at once.
func TestThrottledBatchCallIsWaitedOut(t *testing.T) {
	throttle := &smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException", Message: "hot key"}
	invalid := &smithy.GenericAPIError{Code: "ValidationException", Message: "bad item"}
	cases := []struct {
		name      string
		fail      int // calls refused before the table takes writes
		err       error
		wantCalls int
		wantErr   bool
		wantKind  globalsearch.Kind
	}{
		{name: "refused twice, then written", fail: 2, err: throttle, wantCalls: 3},
		{name: "refused past the attempts", fail: 1000, err: throttle, wantCalls: fastBackoff.Attempts, wantErr: true, wantKind: globalsearch.KindThrottled},
		{name: "another error stops at once", fail: 1000, err: invalid, wantCalls: 1, wantErr: true, wantKind: globalsearch.KindInternal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			raw := testenv.Minidyn(t)
			require.NoError(t, store.CreateTables(ctx, raw, store.Tables{Runs: "runs"}))
			var calls atomic.Int32
			fake := &fakeClient{next: raw, batchWriteItem: func(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				if int(calls.Add(1)) <= tc.fail {
					return nil, tc.err
				}
				return raw.BatchWriteItem(ctx, in)
			}}
			runs := newRuns(t, fake, "runs", store.WithBackoff(fastBackoff))
			p := throttledPlan("run-1", 20, 10)
			err := runs.SavePlan(ctx, p)
			assert.Equal(t, tc.wantCalls, int(calls.Load()), "BatchWriteItem calls")
			if !tc.wantErr {
				require.NoError(t, err)
				assertPlan(t, runs, p)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "%v", err)
			assert.ErrorIs(t, err, tc.err)
			_, err = runs.Plan(ctx, "q")
			assert.ErrorIs(t, err, globalsearch.ErrNotFound, "no plan switched to")
		})
	}
}
