// Package dircache is the in-process map-answer cache (docs/contract.md#map-cache): one
// small JSON file per key under a directory, the twin of the DynamoDB cache
// table in shared/store. Both pass the suite in store/cachetest.
package dircache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MaxEntryBytes caps an entry file (docs/contract.md#map-cache). An entry is one map
// answer, a few KB at the default output reserve; the cap bounds what a
// file that is not the cache's own (a huge file, a device) can cost, and
// an answer past it is not written, since it could never be read back.
const MaxEntryBytes = 1 << 20

// Dir is a cache in a directory. It is safe for concurrent use, also by
// several processes: an entry is written to a temporary file and renamed
// into place, so a reader sees a whole entry or none.
type Dir struct {
	path string
	ttl  time.Duration
	now  func() time.Time
	// read reads an entry file; tests replace it to block.
	read func(name string) ([]byte, error)
}

var _ globalsearch.MapCache = (*Dir)(nil)

// New returns the cache in path, created (0700: answers quote the index)
// when first written. ttl <= 0 means globalsearch.DefaultMapCacheTTL, as on AWS; now nil means time.Now.
func New(path string, ttl time.Duration, now func() time.Time) *Dir {
	if ttl <= 0 {
		ttl = globalsearch.DefaultMapCacheTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Dir{path: path, ttl: ttl, now: now, read: readEntry}
}

type entry struct {
	globalsearch.CachedAnswer
	ExpiresAt int64 `json:"expiresAt"`
}

// file is key's entry file. Only a key globalsearch.MapCacheKey can return
// is taken: anything else could name a path outside the directory.
func (d *Dir) file(key string) (string, error) {
	if err := globalsearch.CheckMapCacheKey(key); err != nil {
		return "", err
	}
	return filepath.Join(d.path, key[:2], key+".json"), nil
}

// CachedMapAnswer implements globalsearch.MapCache; an expired entry reads
// as absent. Anything at the entry's name but a regular file of at most
// MaxEntryBytes is an error, which the engine reads as a miss.
func (d *Dir) CachedMapAnswer(ctx context.Context, key string) (globalsearch.CachedAnswer, bool, error) {
	if err := ctx.Err(); err != nil {
		return globalsearch.CachedAnswer{}, false, err
	}
	name, err := d.file(key)
	if err != nil {
		return globalsearch.CachedAnswer{}, false, err
	}
	data, err := d.readWithin(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return globalsearch.CachedAnswer{}, false, nil
	}
	if err != nil {
		return globalsearch.CachedAnswer{}, false, err
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
	if len(data) > MaxEntryBytes {
		return globalsearch.Errorf(globalsearch.KindInvalidInput,
			"map cache entry is %d bytes, over the %d-byte cap", len(data), MaxEntryBytes)
	}
	return writeAtomic(name, "map cache entry", data)
}

// writeAtomic writes data to name through a temporary file beside it,
// renamed into place: a reader sees the old file whole or the new one
// whole, and a link at name is replaced, never followed.
func writeAtomic(name, what string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return fmt.Errorf("create the directory of %s: %w", what, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".entry-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", what, err)
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
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}

type readResult struct {
	data []byte
	err  error
}

// readWithin reads name in a goroutine of its own, so that a file system
// that stops answering (a network or FUSE mount) holds up that goroutine
// and not the run: the call returns when ctx ends, and the abandoned read
// closes its file whenever the file system lets it finish.
func (d *Dir) readWithin(ctx context.Context, name string) ([]byte, error) {
	if ctx.Done() == nil {
		return d.read(name)
	}
	done := make(chan readResult, 1)
	go func() {
		data, err := d.read(name)
		done <- readResult{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("read map cache entry %s: %w", name, context.Cause(ctx))
	}
}

// readEntry reads the entry file name, which must be a regular file of at
// most MaxEntryBytes (docs/contract.md#map-cache). openEntry neither follows a link nor
// waits for a named pipe's writer; the type and size are then checked on
// the opened file, so nothing can swap the file between check and read,
// and the read stops one byte past the cap in case the file grows.
func readEntry(name string) ([]byte, error) {
	return readCapped(name, "map cache entry", MaxEntryBytes)
}

// readCapped is readEntry for a file of what, of at most limit bytes.
func readCapped(name, what string, limit int64) ([]byte, error) {
	f, err := openEntry(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		// O_NOFOLLOW's error ("too many levels of symbolic links") does
		// not say what was found.
		if fi, lerr := os.Lstat(name); lerr == nil && !fi.Mode().IsRegular() {
			return nil, notRegular(what, name, fi.Mode())
		}
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(what, name, fi.Mode())
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s %s is %d bytes, over the %d-byte cap", what, name, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s %s grew past the %d-byte cap while it was read", what, name, limit)
	}
	return data, nil
}

func notRegular(entry, name string, mode fs.FileMode) error {
	kind := fmt.Sprintf("of mode %v", mode)
	switch {
	case mode&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	case mode.IsDir():
		kind = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	case mode&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("%s %s is %s, not a regular file", entry, name, kind)
}
