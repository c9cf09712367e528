package main

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

func TestIndexOptionsTable(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "idx")
	require.NoError(t, store.CreateTables(ctx, testenv.DynamoDBClient(t, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")), store.Tables{Index: "idx"}))
	require.NoError(t, s.ReplaceNamespace(ctx, "default", smallIndex().Records))

	o := indexOptions{table: "idx"}
	idx, ns, err := o.open(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, ns, "a table holds many namespaces: the request's defaults choose one (docs/contract.md#request)")
	snap, err := idx.Open(ctx, "default")
	require.NoError(t, err)
	sums, err := snap.Summaries(ctx)
	require.NoError(t, err)
	assert.Len(t, sums, 3)

	_, _, err = (&indexOptions{table: "idx", file: "x.json"}).open(ctx, nil)
	var usage *usageError
	assert.ErrorAs(t, err, &usage)
}
