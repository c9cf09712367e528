package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store"
)

// TestShardedVersions: a version larger than one shard is spread over
// several partitions (docs/dynamodb.md#shards), reads back exactly as the
// same records in one partition do, record for record and in the same
// order, and leaves no shard behind when it is replaced or deleted.
func TestShardedVersions(t *testing.T) {
	backends := freshBackends()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			client := b.client(t)
			r := generate(40)
			for i := range r.Chunks {
				r.Chunks[i].Text = strings.Repeat("x", 3000) // 80 chunks, 240 KB
			}
			whole := newIndex(t, client, newTables(t, client).Index)
			require.NoError(t, whole.ReplaceNamespace(ctx, "ns", r))
			tables := newTables(t, client)
			sharded := newIndex(t, client, tables.Index, store.WithShardBytes(32<<10), store.WithQueryLimit(7))
			require.NoError(t, sharded.ReplaceNamespace(ctx, "ns", r))

			shards := versionShards(t, client, tables.Index, "ns")
			assert.Len(t, shards, 8, "240 KB of records in shards of 32 KB")
			total := 0
			for p, n := range shards {
				assert.Positive(t, n, "shard %s holds records", p)
				total += n
			}
			assert.Equal(t, len(r.Summaries)+len(r.Claims)+len(r.Chunks), total, "every record once")

			ids := append(citedChunkIDs(r)[:5], "k-none")
			for _, read := range []struct {
				what string
				get  func(*store.Index) (any, error)
			}{
				{"summaries", func(s *store.Index) (any, error) { return s.Summaries(ctx, "ns") }},
				{"claims", func(s *store.Index) (any, error) { return s.Claims(ctx, "ns") }},
				{"chunks by key", func(s *store.Index) (any, error) { return s.Chunks(ctx, "ns", ids) }},
				{"chunks by query", func(s *store.Index) (any, error) { return s.Chunks(ctx, "ns", citedChunkIDs(r)) }},
			} {
				want, err := read.get(whole)
				require.NoError(t, err)
				got, err := read.get(sharded)
				require.NoError(t, err)
				assert.Equal(t, want, got, read.what)
			}

			smaller := generate(3)
			require.NoError(t, sharded.ReplaceNamespace(ctx, "ns", smaller))
			shards = versionShards(t, client, tables.Index, "ns")
			assert.Len(t, shards, 1, "a version within one shard is one partition, and the shards of the old are gone: %v", shards)
			got, err := sharded.Summaries(ctx, "ns")
			require.NoError(t, err)
			assert.Len(t, got, len(smaller.Summaries))

			require.NoError(t, sharded.ReplaceNamespace(ctx, "ns", r))
			require.NoError(t, sharded.DeleteNamespace(ctx, "ns"))
			assert.Empty(t, versionShards(t, client, tables.Index, "ns"), "a deleted namespace leaves no shard")
			got, err = sharded.Summaries(ctx, "ns")
			require.NoError(t, err)
			assert.Empty(t, got)
		})
	}
}

// versionShards counts the items of each partition of namespace's
// versions: every partition but its head. A partition of a version the
// head does not name fails the test.
func versionShards(t *testing.T, client *dynamodb.Client, table, namespace string) map[string]int {
	t.Helper()
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"namespace": &types.AttributeValueMemberS{Value: namespace}, "sk": &types.AttributeValueMemberS{Value: "#head"},
	}})
	require.NoError(t, err)
	version := ""
	if v, ok := out.Item["version"].(*types.AttributeValueMemberS); ok {
		version = v.Value
	}
	got := map[string]int{}
	for p, n := range partitions(t, client, table) {
		if !strings.HasPrefix(p, namespace+"#") {
			continue
		}
		assert.True(t, p == namespace+"#"+version || strings.HasPrefix(p, namespace+"#"+version+"#"), "partition %s is of the current version %s", p, version)
		got[p] = n
	}
	return got
}
