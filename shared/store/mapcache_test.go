package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/mapcache/cachetest"
	"github.com/graphrag-global/graphrag-global/shared/store"
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
	_, _, err := s.CachedMapAnswer(context.Background(), "k")
	assert.Error(t, err)
	assert.Error(t, s.CacheMapAnswer(context.Background(), "k", globalsearch.CachedAnswer{}))
}
