// Package mapcache is the in-process map-answer cache (docs/contract.md#map-cache): one
// small JSON file per key under a directory, the twin of the DynamoDB cache
// table in shared/store. Both pass the suite in mapcache/cachetest.
package mapcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// DefaultTTL is how long an entry lives: as on AWS, 30 days.
const DefaultTTL = 30 * 24 * time.Hour

// Dir is a cache in a directory. It is safe for concurrent use, also by
// several processes: an entry is written to a temporary file and renamed
// into place, so a reader sees a whole entry or none.
type Dir struct {
	path string
	ttl  time.Duration
	now  func() time.Time
}

var _ globalsearch.MapCache = (*Dir)(nil)

// New returns the cache in path, created (0700: answers quote the index)
// when first written. ttl <= 0 means DefaultTTL; now nil means time.Now.
func New(path string, ttl time.Duration, now func() time.Time) *Dir {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Dir{path: path, ttl: ttl, now: now}
}

type entry struct {
	globalsearch.CachedAnswer
	ExpiresAt int64 `json:"expiresAt"`
}

// keys are what globalsearch.MapCacheKey returns; anything else could name
// a path outside the directory.
var keyPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (d *Dir) file(key string) (string, error) {
	if !keyPattern.MatchString(key) {
		return "", fmt.Errorf("map cache key %q is not a SHA-256 in hex", key)
	}
	return filepath.Join(d.path, key[:2], key+".json"), nil
}

// CachedMapAnswer implements globalsearch.MapCache; an expired entry reads
// as absent.
func (d *Dir) CachedMapAnswer(ctx context.Context, key string) (globalsearch.CachedAnswer, bool, error) {
	if err := ctx.Err(); err != nil {
		return globalsearch.CachedAnswer{}, false, err
	}
	name, err := d.file(key)
	if err != nil {
		return globalsearch.CachedAnswer{}, false, err
	}
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return globalsearch.CachedAnswer{}, false, nil
	}
	if err != nil {
		return globalsearch.CachedAnswer{}, false, fmt.Errorf("read map cache entry: %w", err)
	}
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return globalsearch.CachedAnswer{}, false, fmt.Errorf("read map cache entry %s: %w", name, err)
	}
	if e.ExpiresAt <= d.now().Unix() {
		return globalsearch.CachedAnswer{}, false, nil
	}
	return e.CachedAnswer, true, nil
}

// CacheMapAnswer implements globalsearch.MapCache.
func (d *Dir) CacheMapAnswer(ctx context.Context, key string, a globalsearch.CachedAnswer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	name, err := d.file(key)
	if err != nil {
		return err
	}
	data, err := json.Marshal(entry{CachedAnswer: a, ExpiresAt: d.now().Add(d.ttl).Unix()})
	if err != nil {
		return fmt.Errorf("encode map cache entry: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return fmt.Errorf("create map cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".entry-*")
	if err != nil {
		return fmt.Errorf("write map cache entry: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write map cache entry: %w", err)
	}
	return nil
}
