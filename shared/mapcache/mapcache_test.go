package mapcache_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/mapcache"
	"github.com/graphrag-global/graphrag-global/shared/mapcache/cachetest"
)

func TestDirConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T, ttl time.Duration, clock *cachetest.Clock) globalsearch.MapCache {
		return mapcache.New(filepath.Join(t.TempDir(), "cache"), ttl, clock.Now)
	})
}

func TestDirRefuses(t *testing.T) {
	dir := t.TempDir()
	c := mapcache.New(dir, 0, nil)
	key := globalsearch.MapCacheKey("m", "p", 1)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, key[:2]), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, key[:2], key+".json"), []byte("{half"), 0o600))
	tests := []struct {
		name string
		key  string
	}{
		{"a key that could leave the directory", "../../etc/passwd"},
		{"a damaged entry", key},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := c.CachedMapAnswer(context.Background(), tc.key)
			require.Error(t, err)
			assert.False(t, ok)
		})
	}
	assert.Error(t, c.CacheMapAnswer(context.Background(), "../x", globalsearch.CachedAnswer{}))
}
