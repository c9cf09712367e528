package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/limits"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// A record item of the wrong shape is a corrupt index: the read says which
// item and which attribute, as an internal error, on one partition or
// many, and a failed Query is still said as a failed read.
func TestCorruptRecordItem(t *testing.T) {
	tests := []struct {
		name       string
		shardBytes int64
		corrupt    func(it map[string]types.AttributeValue)
		failQuery  bool
		read       func(ctx context.Context, snap globalsearch.Snapshot) error
		sk         string
		wantErr    string
		wantKind   globalsearch.Kind
	}{
		{name: "a summary's level is text", sk: "summary#c00001",
			corrupt: func(it map[string]types.AttributeValue) { it["level"] = &types.AttributeValueMemberS{Value: "one"} },
			read:    func(ctx context.Context, s globalsearch.Snapshot) error { _, err := s.Summaries(ctx); return err },
			wantErr: "decode summaries of namespace ns: item summary#c00001: attribute level is *types.AttributeValueMemberS, not a number", wantKind: globalsearch.KindInternal},
		{name: "a claim's citations are a boolean, over shards", shardBytes: 200, sk: "claim#clc00002",
			corrupt: func(it map[string]types.AttributeValue) {
				it["sourceChunkIds"] = &types.AttributeValueMemberBOOL{Value: true}
			},
			read:    func(ctx context.Context, s globalsearch.Snapshot) error { _, err := s.Claims(ctx); return err },
			wantErr: "decode claims of namespace ns: item claim#clc00002: attribute sourceChunkIds is *types.AttributeValueMemberBOOL, not a list of strings", wantKind: globalsearch.KindInternal},
		{name: "a chunk's text is a number", sk: "chunk#k00003",
			corrupt: func(it map[string]types.AttributeValue) { it["text"] = &types.AttributeValueMemberN{Value: "3"} },
			read: func(ctx context.Context, s globalsearch.Snapshot) error {
				_, err := s.Chunks(ctx, []string{"k00003"})
				return err
			},
			wantErr: "decode chunks of namespace ns: item chunk#k00003: attribute text is *types.AttributeValueMemberN, not a string", wantKind: globalsearch.KindInternal},
		{name: "a throttled page, over shards", shardBytes: 200, sk: "summary#c00001", failQuery: true,
			corrupt: func(map[string]types.AttributeValue) {},
			read:    func(ctx context.Context, s globalsearch.Snapshot) error { _, err := s.Summaries(ctx); return err },
			wantErr: "read summaries of namespace ns: throttled by DynamoDB: operation error DynamoDB: Query, api error ThrottlingException: slow down", wantKind: globalsearch.KindThrottled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h, _ := testenv.MinidynHandler()
			client := limits.New(h, limits.Limits{}).DynamoDB()
			tables := newTables(t, client)
			var opts []store.Option
			if tc.shardBytes > 0 {
				opts = append(opts, store.WithShardBytes(tc.shardBytes))
			}
			idx := newIndex(t, client, tables.Index, opts...)
			require.NoError(t, idx.ReplaceNamespace(ctx, "ns", generate(4)))
			corruptItem(t, client, tables.Index, tc.sk, tc.corrupt)

			if tc.failQuery {
				f := &fakeClient{next: client, query: func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
					if strings.HasPrefix(in.ExpressionAttributeValues[":1"].(*types.AttributeValueMemberS).Value, "summary#") {
						return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "Query",
							Err: &smithy.GenericAPIError{Code: "ThrottlingException", Message: "slow down"}}
					}
					return client.Query(ctx, in)
				}}
				idx = newIndex(t, f, tables.Index, opts...)
			}
			snap, err := idx.Open(ctx, "ns")
			require.NoError(t, err)
			err = tc.read(ctx, snap)
			require.EqualError(t, err, tc.wantErr)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
		})
	}
}

// corruptItem rewrites the index item whose sort key is sk, in whichever
// partition of the version it is.
func corruptItem(t *testing.T, client *dynamodb.Client, table, sk string, corrupt func(map[string]types.AttributeValue)) {
	t.Helper()
	out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: &table})
	require.NoError(t, err)
	for _, it := range out.Items {
		if v, ok := it["sk"].(*types.AttributeValueMemberS); ok && v.Value == sk {
			corrupt(it)
			_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: it})
			require.NoError(t, err)
			return
		}
	}
	t.Fatalf("no item %s in %s", sk, table)
}
