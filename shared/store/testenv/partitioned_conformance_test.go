package testenv_test

import (
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/limits"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// stores is the index and runs table the conformance suite takes as one.
type stores struct {
	*store.Index
	*store.Runs
}

var tableSeq atomic.Int64

// TestConformancePartitioned runs the store's conformance suite on
// PartitionedMinidynHandler, so that the router serves the store as one
// minidyn server does (shared/store's TestConformanceMinidyn), and the
// simulations that use it measure the store and not the router.
func TestConformancePartitioned(t *testing.T) {
	hs := httptest.NewServer(testenv.PartitionedMinidynHandler(limits.QueryPartition))
	t.Cleanup(hs.Close)
	client := testenv.DynamoDBClient(t, hs.URL)
	storetest.Run(t, func(t *testing.T) storetest.Store {
		n := tableSeq.Add(1)
		tables := store.Tables{Index: fmt.Sprintf("index-%d", n), Runs: fmt.Sprintf("runs-%d", n)}
		require.NoError(t, store.CreateTables(t.Context(), client, tables))
		// As on one minidyn server: a small page makes the suite cross
		// page boundaries, which minidyn's answers otherwise never have.
		c := store.NewClient(client, store.WithQueryLimit(25))
		idx, err := store.NewIndex(c, tables.Index)
		require.NoError(t, err)
		runs, err := store.NewRuns(c, tables.Runs)
		require.NoError(t, err)
		return stores{idx, runs}
	})
}
