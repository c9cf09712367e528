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

// movingIndex is an index whose namespace is replaced while each search
// reads it, as many times as moves says: the snapshot of open number n
// reports itself not intact while n <= moves, and each open reads the
// version replaced in by the open before it.
type movingIndex struct {
	versions []*memstore.Store // the version each open reads, the last one repeated
	moves    int
	checkErr error
	opens    int
}

func (m *movingIndex) Open(ctx context.Context, ns string) (gs.Snapshot, error) {
	v := m.versions[min(m.opens, len(m.versions)-1)]
	m.opens++
	snap, err := v.Open(ctx, ns)
	return movingSnapshot{snap, m, m.opens}, err
}

type movingSnapshot struct {
	gs.Snapshot
	m *movingIndex
	n int
}

func (v movingSnapshot) Intact(context.Context) (bool, error) {
	return v.n > v.m.moves, v.m.checkErr
}

// TestPlanReadsOneVersion: a search whose namespace was replaced while it
// read reads the new version once more, and refuses as throttled (retried
// by the state machine) one replaced during both reads
// (docs/contract.md#namespace-versions).
func TestPlanReadsOneVersion(t *testing.T) {
	ctx := context.Background()
	version := func(n int) *memstore.Store {
		s := memstore.New()
		require.NoError(t, s.ReplaceNamespace(ctx, "default", leafNamespace(n)))
		return s
	}
	tests := []struct {
		name        string
		moves       int
		checkErr    error
		wantOpens   int
		wantBatches int // 0: an error
		wantKind    gs.Kind
	}{
		{"not replaced: one read", 0, nil, 1, 2, 0},
		{"replaced during the first read: the new version, read again", 1, nil, 2, 3, 0},
		{"replaced during both reads: throttled", 2, nil, 2, 0, gs.KindThrottled},
		{"the version cannot be checked", 0, errors.New("network down"), 1, 0, gs.KindInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := &movingIndex{versions: []*memstore.Store{version(2), version(3), version(4)}, moves: tc.moves, checkErr: tc.checkErr}
			plan, err := (&gs.Engine{Index: idx}).Plan(ctx, oneBatchPerSummary(t, "q?", nil))
			assert.Equal(t, tc.wantOpens, idx.opens, "opens")
			if tc.wantBatches == 0 {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, gs.KindOf(err), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, plan.Batches, tc.wantBatches, "the batches of the version read whole")
		})
	}
}
