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

// failingRequests refuses every claim with err.
type failingRequests struct {
	gs.Requests
	err error
}

func (f failingRequests) CreateRequest(context.Context, gs.Params, string) (gs.Params, bool, error) {
	return gs.Params{}, false, f.err
}

// TestClaimRequest: the one claim of a query id (docs/contract.md#query-ids)
// creates a request once, gives the stored one back to the same request
// (its seed wins), and refuses a different one as a conflict that changes
// nothing.
func TestClaimRequest(t *testing.T) {
	ctx := context.Background()
	first := gs.Params{QueryID: "q1", Query: "What changed?", Namespace: "default", ShuffleSeed: 7}
	tests := []struct {
		name        string
		p           gs.Params
		wantCreated bool
		wantStored  gs.Params
		wantKind    gs.Kind
		wantErr     string
	}{
		{name: "a new id is created", p: first, wantCreated: true, wantStored: first},
		{name: "the same request finds the stored one", p: first, wantStored: first},
		{name: "a generated seed matches the stored seed", p: gs.Params{QueryID: "q1", Query: "What changed?", Namespace: "default", ShuffleSeed: 99, SeedGenerated: true},
			wantStored: first},
		{name: "another query is a conflict", p: gs.Params{QueryID: "q1", Query: "What stayed?", Namespace: "default", ShuffleSeed: 7},
			wantKind: gs.KindConflict, wantErr: "query id q1 already names a different request"},
		{name: "an explicit seed that differs is a conflict", p: gs.Params{QueryID: "q1", Query: "What changed?", Namespace: "default", ShuffleSeed: 8},
			wantKind: gs.KindConflict, wantErr: "query id q1 already names a different request"},
	}
	s := memstore.New()
	for _, tc := range tests { // in order: each case sees the claims before it
		t.Run(tc.name, func(t *testing.T) {
			stored, created, err := gs.ClaimRequest(ctx, s, tc.p, "")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, gs.KindOf(err))
				assert.EqualError(t, err, tc.wantErr)
				assert.False(t, created)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tc.wantCreated, created)
				assert.Equal(t, tc.wantStored, stored)
			}
			got, err := s.Request(ctx, "q1")
			require.NoError(t, err)
			assert.Equal(t, first, got, "the first request stays the id's request")
		})
	}

	t.Run("a store error comes back as it came", func(t *testing.T) {
		cause := gs.Errorf(gs.KindThrottled, "slow down")
		_, created, err := gs.ClaimRequest(ctx, failingRequests{err: cause}, first, "")
		assert.False(t, created)
		assert.Same(t, cause, err)
	})
}

// TestConflictIsItsOwnKind: a conflict is named as such, distinct from
// invalid input, so each edge can answer it in its own way.
func TestConflictIsItsOwnKind(t *testing.T) {
	err := gs.Errorf(gs.KindConflict, "taken")
	assert.Equal(t, gs.KindConflict, gs.KindOf(errors.Join(errors.New("context"), err)))
	assert.NotEqual(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.Equal(t, "conflict", gs.KindConflict.String())
}
