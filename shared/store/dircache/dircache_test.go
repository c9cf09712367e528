package dircache_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/cachetest"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
)

func TestDirConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T, ttl time.Duration, clock *cachetest.Clock) globalsearch.MapCache {
		return dircache.New(filepath.Join(t.TempDir(), "cache"), ttl, clock.Now)
	})
}

func TestDirRefuses(t *testing.T) {
	dir := t.TempDir()
	c := dircache.New(dir, 0, nil)
	key := globalsearch.MapCacheKey("m", "p", 1)
	name := filepath.Join(dir, key[:2], key+".json")
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o700))
	require.NoError(t, os.WriteFile(name, []byte("{half"), 0o600))
	tests := []struct {
		name     string
		key      string
		wantKind globalsearch.Kind
		wantErr  string
	}{
		{"a key that could leave the directory", "../../etc/passwd", globalsearch.KindInvalidInput,
			`map cache key "../../etc/passwd" is not a SHA-256 in hex`},
		{"a damaged entry", key, globalsearch.KindInternal,
			"read map cache entry " + name + ": invalid character 'h' looking for beginning of object key string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := c.CachedMapAnswer(context.Background(), tc.key)
			require.Error(t, err)
			assert.EqualError(t, err, tc.wantErr)
			assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
			assert.False(t, ok)
		})
	}
	err := c.CacheMapAnswer(context.Background(), "../x", globalsearch.CachedAnswer{})
	assert.EqualError(t, err, `map cache key "../x" is not a SHA-256 in hex`)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
}

// TestDirReadEndsWithTheContext holds an entry read, as a file system that
// stops answering would: the read returns when the context ends, not when
// the file system does.
func TestDirReadEndsWithTheContext(t *testing.T) {
	c := dircache.New(t.TempDir(), 0, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	dircache.SetRead(c, func(string) ([]byte, error) {
		close(entered)
		<-release
		return nil, errors.New("the read ended")
	})
	defer close(release)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-entered
		cancel()
	}()
	_, ok, err := c.CachedMapAnswer(ctx, globalsearch.MapCacheKey("m", "p", 1))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "read map cache entry ")
	assert.False(t, ok)
}

func TestStandingConformance(t *testing.T) {
	storetest.RunStanding(t, func(t *testing.T) globalsearch.Standing {
		return dircache.NewStanding(filepath.Join(t.TempDir(), "standing"), 0, nil)
	})
	ttl := 5 * 24 * time.Hour
	storetest.RunStandingExpiry(t, ttl, func(t *testing.T, clock *storetest.StandingClock) globalsearch.Standing {
		return dircache.NewStanding(filepath.Join(t.TempDir(), "standing"), ttl, clock.Now)
	})
}
