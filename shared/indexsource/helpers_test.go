package indexsource

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag/graphragtest"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// The shared fixtures of indexfiletest, by the names these tests use.
var (
	smallIndex = indexfiletest.Small
	writeIndex = indexfiletest.Write
)

// The GraphRAG folder of graphragtest, by the names these tests use.
type (
	testReport    = graphragtest.Report
	testEntity    = graphragtest.Entity
	testCovariate = graphragtest.Covariate
)

var writeFolder = graphragtest.WriteFolder

// minidynEnv points the standard AWS configuration chain at a fresh
// minidyn, as a user would point it at DynamoDB Local, and returns a store
// over table to check what was written. It sets process environment, so
// its tests do not run in parallel.
func minidynEnv(t *testing.T, table string) *store.Index {
	endpoint, _ := testenv.MinidynEndpoint(t)
	testenv.UseAWS(t, map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": endpoint})
	idx, err := store.NewIndex(store.NewClient(testenv.DynamoDBClient(t, endpoint)), table)
	require.NoError(t, err)
	return idx
}
