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
	return store.New(api, tables, store.WithCacheTTL(ttl), store.WithClock(clock.Now))
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

func TestMapCacheWithoutTable(t *testing.T) {
	s := store.New(testenv.Minidyn(t), store.Tables{Runs: "runs"})
	key := globalsearch.MapCacheKey("m", "p", 1)
	_, ok, err := s.CachedMapAnswer(context.Background(), key)
	assert.EqualError(t, err, "the store has no map cache table")
	assert.False(t, ok)
	assert.EqualError(t, s.CacheMapAnswer(context.Background(), key, globalsearch.CachedAnswer{}), "the store has no map cache table")
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
