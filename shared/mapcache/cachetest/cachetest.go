// Package cachetest is the conformance suite of globalsearch.MapCache: the
// directory cache (shared/mapcache) and the DynamoDB cache table
// (shared/store) both pass it.
package cachetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Clock is a settable clock for the expiry cases.
type Clock struct{ T time.Time }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// Run runs the suite. newCache returns an empty cache whose entries live ttl
// by clock.Now.
func Run(t *testing.T, newCache func(t *testing.T, ttl time.Duration, clock *Clock) globalsearch.MapCache) {
	ctx := context.Background()
	key := func(s string) string { return globalsearch.MapCacheKey("model", s, 512) }
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

	t.Run("a key never written is a miss", func(t *testing.T) {
		c := newCache(t, time.Hour, &Clock{start})
		_, ok, err := c.CachedMapAnswer(ctx, key("absent"))
		require.NoError(t, err)
		assert.False(t, ok)
	})
	t.Run("an answer reads back as written, and a write replaces it", func(t *testing.T) {
		c := newCache(t, time.Hour, &Clock{start})
		first := globalsearch.CachedAnswer{Answer: "Ports grew, 港口增长. \"quoted\"", Usefulness: 72.5}
		require.NoError(t, c.CacheMapAnswer(ctx, key("p"), first))
		got, ok, err := c.CachedMapAnswer(ctx, key("p"))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, first, got)
		second := globalsearch.CachedAnswer{Answer: "", Usefulness: 0}
		require.NoError(t, c.CacheMapAnswer(ctx, key("p"), second))
		got, ok, err = c.CachedMapAnswer(ctx, key("p"))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, second, got)
		_, ok, err = c.CachedMapAnswer(ctx, key("other"))
		require.NoError(t, err)
		assert.False(t, ok, "keys are kept apart")
	})
	t.Run("an expired entry is a miss", func(t *testing.T) {
		clock := &Clock{start}
		c := newCache(t, time.Hour, clock)
		require.NoError(t, c.CacheMapAnswer(ctx, key("p"), globalsearch.CachedAnswer{Answer: "a", Usefulness: 1}))
		clock.T = start.Add(59 * time.Minute)
		_, ok, err := c.CachedMapAnswer(ctx, key("p"))
		require.NoError(t, err)
		assert.True(t, ok, "still alive")
		clock.T = start.Add(time.Hour + time.Second)
		_, ok, err = c.CachedMapAnswer(ctx, key("p"))
		require.NoError(t, err)
		assert.False(t, ok, "expired")
	})
}
