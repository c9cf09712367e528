package mcp

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// cancellingModel cancels the call it serves at its first model call,
// as a client's notifications/cancelled does, and returns that error.
type cancellingModel struct{ cancel context.CancelFunc }

func (m cancellingModel) Complete(ctx context.Context, _ globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	m.cancel()
	<-ctx.Done()
	return globalsearch.ModelResponse{}, ctx.Err()
}

// TestMCPCancelledSearchSaysWhatItSpent: a global_search cancelled in
// flight replies with the calls it made (docs/contract.md#cancel).
func TestMCPCancelledSearchSaysWhatItSpent(t *testing.T) {
	var log bytes.Buffer
	s := fileServer(writeIndex(t, titledIndex()), &log)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s.NewEngine = func(_ context.Context, idx globalsearch.Index, _ bool) (*globalsearch.Engine, error) {
		return &globalsearch.Engine{Index: idx, Runs: memstore.New(), ModelID: "offline", Model: cancellingModel{cancel}}, nil
	}
	tl := &tools{Server: s}
	_, _, err := tl.globalSearch(ctx, nil, globalSearchInput{searchInput: searchInput{Query: "How did solar power change?"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spent before the cancel: 1 model calls (rating 0, map 1, reduce 0)")
	assert.Contains(t, log.String(), "cancelled; spent 1 model calls")
}
