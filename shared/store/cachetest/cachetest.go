// Package cachetest is the conformance suite of globalsearch.MapCache: the
// directory cache (shared/store/dircache) and the DynamoDB cache table
// (shared/store) both pass it.
package cachetest

import (
	"context"
	"strings"
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

// NewCache returns an empty cache whose entries live ttl by clock.Now.
type NewCache func(t *testing.T, ttl time.Duration, clock *Clock) globalsearch.MapCache

// start is the time every subtest's clock starts at.
var start = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// key is a key MapCacheKey returns, one per s.
func key(s string) string { return globalsearch.MapCacheKey("model", s, 512) }

// Run runs the suite; newCache is called once per subtest.
func Run(t *testing.T, newCache NewCache) {
	tests := []struct {
		name string
		run  func(t *testing.T, newCache NewCache)
	}{
		{"a key never written is a miss", testMiss},
		{"an answer reads back as written, and a write replaces it", testReadBack},
		{"an expired entry is a miss", testExpiry},
		{"a key MapCacheKey cannot return is refused before any read or write", testBadKey},
		{"an answer too large to keep is refused and the entry it would replace stays", testTooLarge},
		{"an ended context fails reads and writes, and nothing is written", testEndedContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newCache) })
	}
}

func testMiss(t *testing.T, newCache NewCache) {
	ctx := context.Background()
	c := newCache(t, time.Hour, &Clock{start})
	_, ok, err := c.CachedMapAnswer(ctx, key("absent"))
	require.NoError(t, err)
	assert.False(t, ok)
}

func testReadBack(t *testing.T, newCache NewCache) {
	ctx := context.Background()
	c := newCache(t, time.Hour, &Clock{start})
	first := globalsearch.CachedAnswer{Answer: "Ports grew, 港口增长. \"quoted\"", Usefulness: 72.5, CommunityIDs: []string{"7", "c-2"}}
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
}

func testExpiry(t *testing.T, newCache NewCache) {
	ctx := context.Background()
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
}

func testBadKey(t *testing.T, newCache NewCache) {
	ctx := context.Background()
	c := newCache(t, time.Hour, &Clock{start})
	for _, bad := range []string{"", "k", "../../etc/passwd", strings.ToUpper(key("p")), key("p") + "0"} {
		_, ok, err := c.CachedMapAnswer(ctx, bad)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "read %q: %v", bad, err)
		assert.ErrorContains(t, err, "is not a SHA-256 in hex")
		assert.False(t, ok)
		err = c.CacheMapAnswer(ctx, bad, globalsearch.CachedAnswer{Answer: "a", Usefulness: 1})
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "write %q: %v", bad, err)
		assert.ErrorContains(t, err, "is not a SHA-256 in hex")
	}
}

func testTooLarge(t *testing.T, newCache NewCache) {
	ctx := context.Background()
	c := newCache(t, time.Hour, &Clock{start})
	kept := globalsearch.CachedAnswer{Answer: "small", Usefulness: 40}
	require.NoError(t, c.CacheMapAnswer(ctx, key("p"), kept))
	// 2 MiB: past the directory's entry cap and DynamoDB's item limit.
	err := c.CacheMapAnswer(ctx, key("p"), globalsearch.CachedAnswer{Answer: strings.Repeat("a", 2<<20), Usefulness: 40})
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%v", err)
	assert.ErrorContains(t, err, " bytes", "names the size")
	assert.ErrorContains(t, err, "over the ", "names the limit")
	got, ok, err := c.CachedMapAnswer(ctx, key("p"))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, kept, got)
}

func testEndedContext(t *testing.T, newCache NewCache) {
	ctx := context.Background()
	c := newCache(t, time.Hour, &Clock{start})
	ended, cancel := context.WithCancel(ctx)
	cancel()
	err := c.CacheMapAnswer(ended, key("p"), globalsearch.CachedAnswer{Answer: "a", Usefulness: 1})
	assert.ErrorIs(t, err, context.Canceled)
	_, ok, err := c.CachedMapAnswer(ended, key("p"))
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, ok)
	_, ok, err = c.CachedMapAnswer(ctx, key("p"))
	require.NoError(t, err)
	assert.False(t, ok, "the write with an ended context left nothing")
}
