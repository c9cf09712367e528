package store_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
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

// reads records the ConsistentRead of every record read (the head's Query
// aside) in order, by kind: "query" or "get".
type reads struct {
	mu  sync.Mutex
	log []string
}

func (r *reads) add(kind string, consistent *bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if aws.ToBool(consistent) {
		kind += " strong"
	} else {
		kind += " eventual"
	}
	r.log = append(r.log, kind)
}

// TestEventuallyConsistentIndexReads: a version's reads are eventually
// consistent when its head counted its records, and a read that a replica
// behind the leader serves short (the limits double's Stale) is read again
// strongly consistent, so a search still sees the version whole; a head
// without counts (saved before they were) reads strongly consistent
// (docs/contract.md#namespace-versions).
func TestEventuallyConsistentIndexReads(t *testing.T) {
	r := generate(40) // 41 summaries, 40 claims, 80 chunks of 3 KB: 60 read units all together
	for i := range r.Chunks {
		r.Chunks[i].Text = strings.Repeat("x", 3000)
	}
	// A few chunks are read by key, most of them by a Query of all
	// (cheaper than 61 keys at a unit each).
	few, most := []string{"k00000", "k00001", "k00002", "k-none"}, append(citedChunkIDs(r)[:60], "k-none")
	cases := []struct {
		name     string
		ids      []string
		stale    int
		noCounts bool
		want     []string
	}{
		{name: "fresh replicas", ids: few, want: []string{"query eventual", "query eventual", "get eventual", "get strong"}},
		{name: "fresh replicas, most chunks", ids: most, want: []string{"query eventual", "query eventual", "query eventual"}},
		{name: "a short page", ids: few, stale: 1, want: []string{"query eventual", "query strong", "query eventual", "get eventual", "get strong"}},
		{name: "every answer short", ids: few, stale: 10, want: []string{"query eventual", "query strong", "query eventual", "query strong", "get eventual", "get strong"}},
		{name: "every answer short, most chunks", ids: most, stale: 10,
			want: []string{"query eventual", "query strong", "query eventual", "query strong", "query eventual", "query strong"}},
		{name: "a head without counts", ids: most, noCounts: true, want: []string{"query strong", "query strong", "get strong"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h, _ := testenv.MinidynHandler()
			d := limits.New(h, limits.Limits{})
			client := d.DynamoDB()
			tables := newTables(t, client)
			require.NoError(t, newIndex(t, client, tables.Index).ReplaceNamespace(ctx, "ns", r))
			if tc.noCounts { // the head as saved before heads counted records
				key := map[string]types.AttributeValue{"namespace": &types.AttributeValueMemberS{Value: "ns"}, "sk": &types.AttributeValueMemberS{Value: "#head"}}
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &tables.Index, Key: key, ConsistentRead: aws.Bool(true)})
				require.NoError(t, err)
				require.Contains(t, out.Item, "counts")
				delete(out.Item, "counts")
				_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &tables.Index, Item: out.Item})
				require.NoError(t, err)
			}
			var log reads
			f := &fakeClient{next: client,
				query: func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
					if v, ok := in.ExpressionAttributeValues[":1"].(*types.AttributeValueMemberS); !ok || v.Value != "#head" {
						log.add("query", in.ConsistentRead)
					}
					return client.Query(ctx, in)
				},
				batchGetItem: func(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
					log.add("get", in.RequestItems[tables.Index].ConsistentRead)
					return client.BatchGetItem(ctx, in)
				}}
			snap, err := newIndex(t, f, tables.Index).Open(ctx, "ns")
			require.NoError(t, err)
			d.Stale(tc.stale)
			summaries, err := snap.Summaries(ctx)
			require.NoError(t, err)
			claims, err := snap.Claims(ctx)
			require.NoError(t, err)
			chunks, err := snap.Chunks(ctx, tc.ids)
			require.NoError(t, err)
			intact, err := snap.Intact(ctx)
			require.NoError(t, err)

			assert.True(t, intact)
			assert.ElementsMatch(t, r.Summaries, summaries, "every summary, short read or not")
			assert.ElementsMatch(t, r.Claims, claims)
			var want []globalsearch.Chunk
			for _, c := range r.Chunks {
				if slices.Contains(tc.ids, c.ID) {
					want = append(want, c)
				}
			}
			assert.ElementsMatch(t, want, chunks, "every chunk asked for found, the missing id not")
			assert.Equal(t, tc.want, log.log)
			assert.Equal(t, min(tc.stale, 3), d.Stats().Stale, "short answers served")
		})
	}
}

// The head of a replaced namespace counts its records, and that of a
// deleted one none, so reads of either are checked against what the
// version holds.
func TestHeadCountsRecords(t *testing.T) {
	ctx := context.Background()
	h, _ := testenv.MinidynHandler()
	d := limits.New(h, limits.Limits{})
	client := d.DynamoDB()
	tables := newTables(t, client)
	idx := newIndex(t, client, tables.Index)
	require.NoError(t, idx.ReplaceNamespace(ctx, "ns", generate(3)))
	counts := func() types.AttributeValue {
		out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &tables.Index, ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"namespace": &types.AttributeValueMemberS{Value: "ns"}, "sk": &types.AttributeValueMemberS{Value: "#head"}}})
		require.NoError(t, err)
		return out.Item["counts"]
	}
	n := func(v int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }
	// Six chunk items, each "namespace" and "ns#" with the version (32 hex
	// digits), "sk" and "chunk#k0000N", "id" and "k0000N", "text" and
	// "chunk k0000N".
	chunkBytes := 6 * (len("namespace") + len("ns#") + 32 + len("sk") + len("chunk#k00000") + len("id") + len("k00000") + len("text") + len("chunk k00000"))
	assert.Equal(t, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"summaries": n(4), "claims": n(3), "chunks": n(6), "chunkBytes": n(chunkBytes)}}, counts())
	require.NoError(t, idx.DeleteNamespace(ctx, "ns"))
	assert.Equal(t, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"summaries": n(0), "claims": n(0), "chunks": n(0), "chunkBytes": n(0)}}, counts())
	d.Stale(5)
	got, err := idx.Summaries(ctx, "ns")
	require.NoError(t, err)
	assert.Empty(t, got, "a deleted namespace reads empty")
}

// A strongly consistent read again that fails fails the read, as the
// first would have: nothing short is returned as whole.
func TestStrongRereadFails(t *testing.T) {
	r := generate(3)
	for i := range r.Chunks {
		r.Chunks[i].Text += chunkText
	}
	apiErr := &smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException", Message: "slow down"}
	cases := []struct {
		name string
		read func(context.Context, globalsearch.Snapshot) error
	}{
		{"summaries read short", func(ctx context.Context, s globalsearch.Snapshot) error { _, err := s.Summaries(ctx); return err }},
		{"chunks not found", func(ctx context.Context, s globalsearch.Snapshot) error {
			_, err := s.Chunks(ctx, []string{"k00000", "k-none"})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h, _ := testenv.MinidynHandler()
			d := limits.New(h, limits.Limits{})
			client := d.DynamoDB()
			tables := newTables(t, client)
			require.NoError(t, newIndex(t, client, tables.Index).ReplaceNamespace(ctx, "ns", r))
			f := &fakeClient{next: client,
				query: func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
					if aws.ToBool(in.ConsistentRead) && !isHeadQuery(in) {
						return nil, apiErr
					}
					return client.Query(ctx, in)
				},
				batchGetItem: func(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
					if aws.ToBool(in.RequestItems[tables.Index].ConsistentRead) {
						return nil, apiErr
					}
					return client.BatchGetItem(ctx, in)
				}}
			snap, err := newIndex(t, f, tables.Index, store.WithBackoff(fastBackoff)).Open(ctx, "ns")
			require.NoError(t, err)
			d.Stale(1)
			err = tc.read(ctx, snap)
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err), "%v", err)
			assert.ErrorIs(t, err, apiErr)
		})
	}
}
