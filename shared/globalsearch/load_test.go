package globalsearch_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// overlapIndex answers from a memstore, but its Summaries returns only once
// Claims has started: an engine that reads them one after the other never
// gets past Summaries (the guard below turns that into a failure). Its
// Claims, when block is set, waits for its context to end instead.
type overlapIndex struct {
	*memstore.Store
	claimsStarted  chan struct{}
	started        atomic.Bool
	block          bool
	claimsReturned atomic.Bool
}

// overlapGuard bounds a wait that only a broken engine makes long.
const overlapGuard = 10 * time.Second

func (x *overlapIndex) Open(ctx context.Context, ns string) (gs.Snapshot, error) {
	snap, err := x.Store.Open(ctx, ns)
	return overlapSnapshot{snap, x}, err
}

type overlapSnapshot struct {
	gs.Snapshot
	x *overlapIndex
}

func (v overlapSnapshot) Summaries(ctx context.Context) ([]gs.Summary, error) {
	select {
	case <-v.x.claimsStarted:
		return v.Snapshot.Summaries(ctx)
	case <-time.After(overlapGuard):
		return nil, errors.New("claims were not read while the summaries were")
	}
}

func (v overlapSnapshot) Claims(ctx context.Context) ([]gs.Claim, error) {
	defer v.x.claimsReturned.Store(true)
	if v.x.started.CompareAndSwap(false, true) {
		close(v.x.claimsStarted)
	}
	if v.x.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return v.Snapshot.Claims(ctx)
}

func TestPrepareReadsSummariesAndClaimsTogether(t *testing.T) {
	tests := []struct {
		name        string
		records     gs.Records
		block       bool
		wantBatches bool
	}{
		{"claims overlap the summaries", leafNamespace(3), false, true},
		{"an empty namespace stops the claims read and waits for it", gs.Records{}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := memstore.New()
			if len(tc.records.Summaries) > 0 { // else the namespace stays empty: no replacement empties one
				require.NoError(t, s.ReplaceNamespace(context.Background(), "default", tc.records))
			}
			x := &overlapIndex{Store: s, claimsStarted: make(chan struct{}), block: tc.block}
			e := &gs.Engine{Index: x, Runs: s, Model: &switchModel{}}
			plan, err := e.Plan(context.Background(), oneBatchPerSummary(t, "q?", nil))
			require.NoError(t, err)
			assert.Equal(t, tc.wantBatches, len(plan.Batches) > 0)
			assert.True(t, x.claimsReturned.Load(), "no index read outlives the plan")
		})
	}
}
