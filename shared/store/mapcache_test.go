package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/cachetest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

func newCacheStore(t *testing.T, client store.TablesAPI, api store.DynamoDBAPI, ttl time.Duration, clock *cachetest.Clock) globalsearch.MapCache {
	t.Helper()
	tables := store.Tables{MapCache: fmt.Sprintf("cache-%d", tableSeq.Add(1))}
	require.NoError(t, store.CreateTables(context.Background(), client, tables))
	c, err := store.NewCache(store.NewClient(api, store.WithCacheTTL(ttl), store.WithClock(clock.Now)), tables.MapCache)
	require.NoError(t, err)
	return c
}

func TestMapCacheConformanceMinidyn(t *testing.T) {
	cachetest.Run(t, func(t *testing.T, ttl time.Duration, clock *cachetest.Clock) globalsearch.MapCache {
		client := testenv.Minidyn(t)
		return newCacheStore(t, client, client, ttl, clock)
	})
}

func TestMapCacheConformanceMoto(t *testing.T) {
	client := testenv.DynamoDBClient(t, testenv.Moto(t, testenv.MotoOptions{}))
	cachetest.Run(t, func(t *testing.T, ttl time.Duration, clock *cachetest.Clock) globalsearch.MapCache {
		return newCacheStore(t, client, client, ttl, clock)
	})
}

// A table type cannot be built without its table's name: a deployment
// missing one fails at start-up, before any request, not at its first read
// or write of that table (once the map-cache reads failed at run time).
func TestTableWithoutName(t *testing.T) {
	c := store.NewClient(testenv.Minidyn(t))
	tests := []struct {
		name  string
		build func() (any, error)
		want  string
	}{
		{"index", func() (any, error) { return store.NewIndex(c, "") }, "the index table has no name"},
		{"runs", func() (any, error) { return store.NewRuns(c, "") }, "the runs table has no name"},
		{"map cache", func() (any, error) { return store.NewCache(c, "") }, "the map cache table has no name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.build()
			assert.EqualError(t, err, tc.want)
			assert.Nil(t, got)
		})
	}
}

// TestMapCacheErrors pins what each failure of the cache table reads as:
// the engine logs these and makes the call, so the message is what an
// operator sees, and the kind says whether waiting helps.
func TestMapCacheErrors(t *testing.T) {
	key := globalsearch.MapCacheKey("m", "p", 1)
	throttled := func() error { return &smithy.GenericAPIError{Code: "ThrottlingException", Message: "slow down"} }
	denied := func() error { return &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not allowed"} }
	item := func(usefulness types.AttributeValue) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"key":        &types.AttributeValueMemberS{Value: key},
			"answer":     &types.AttributeValueMemberS{Value: "a"},
			"usefulness": usefulness,
			"expiresAt":  &types.AttributeValueMemberN{Value: "4102444800"},
		}
	}
	tests := []struct {
		name     string
		fake     func(f *fakeClient)
		write    bool
		wantKind globalsearch.Kind
		wantErr  string
	}{
		{"a throttled read", func(f *fakeClient) {
			f.getItem = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
				return nil, throttled()
			}
		}, false, globalsearch.KindThrottled, "read map cache: throttled by DynamoDB: api error ThrottlingException: slow down"},
		{"a refused read", func(f *fakeClient) {
			f.getItem = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) { return nil, denied() }
		}, false, globalsearch.KindInternal, "read map cache: api error AccessDeniedException: not allowed"},
		{"an item whose usefulness is not a number", func(f *fakeClient) {
			f.getItem = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
				return &dynamodb.GetItemOutput{Item: item(&types.AttributeValueMemberS{Value: "high"})}, nil
			}
		}, false, globalsearch.KindInternal, "decode map cache item: "},
		{"a throttled write", func(f *fakeClient) {
			f.putItem = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
				return nil, throttled()
			}
		}, true, globalsearch.KindThrottled, "write map cache: throttled by DynamoDB: api error ThrottlingException: slow down"},
		{"a refused write", func(f *fakeClient) {
			f.putItem = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) { return nil, denied() }
		}, true, globalsearch.KindInternal, "write map cache: api error AccessDeniedException: not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := testenv.Minidyn(t)
			f := &fakeClient{next: client}
			tc.fake(f)
			c := newCacheStore(t, client, f, time.Hour, &cachetest.Clock{T: time.Now()})
			var err error
			if tc.write {
				err = c.CacheMapAnswer(context.Background(), key, globalsearch.CachedAnswer{Answer: "a", Usefulness: 1})
			} else {
				var ok bool
				_, ok, err = c.CachedMapAnswer(context.Background(), key)
				assert.False(t, ok)
			}
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.wantErr), "%q starts with %q", err, tc.wantErr)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
		})
	}
}
