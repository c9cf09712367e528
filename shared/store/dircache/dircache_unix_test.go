//go:build unix

package dircache_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
)

// entryPath is where the directory cache keeps key's entry.
func entryPath(dir, key string) string {
	return filepath.Join(dir, key[:2], key+".json")
}

// validEntry is an entry file the cache would serve: alive for a day.
func validEntry(t *testing.T, answer string) []byte {
	t.Helper()
	data, err := json.Marshal(map[string]any{
		"answer": answer, "usefulness": 50, "expiresAt": time.Now().Add(24 * time.Hour).Unix(),
	})
	require.NoError(t, err)
	return data
}

// TestDirReadsOnlyRegularEntries puts at an entry's path what a damaged or
// hostile cache directory can hold. Each is a miss with an error naming
// what was found (the engine logs it and makes the call): never a hang on a
// named pipe, never a read of a device or a huge file into memory, never a
// read through a link.
func TestDirReadsOnlyRegularEntries(t *testing.T) {
	key := globalsearch.MapCacheKey("m", "p", 1)
	tests := []struct {
		name     string
		put      func(t *testing.T, path string)
		needUser bool // permissions do not apply to root
		wantErr  string
	}{
		{"a named pipe", func(t *testing.T, path string) {
			require.NoError(t, syscall.Mkfifo(path, 0o600))
		}, false, "is a named pipe, not a regular file"},
		{"a link to /dev/zero", func(t *testing.T, path string) {
			require.NoError(t, os.Symlink("/dev/zero", path))
		}, false, "is a symbolic link, not a regular file"},
		{"a link to a valid entry elsewhere", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "entry.json")
			require.NoError(t, os.WriteFile(target, validEntry(t, "from elsewhere"), 0o600))
			require.NoError(t, os.Symlink(target, path))
		}, false, "is a symbolic link, not a regular file"},
		{"a directory", func(t *testing.T, path string) {
			require.NoError(t, os.Mkdir(path, 0o700))
		}, false, "is a directory, not a regular file"},
		{"a valid entry one byte over the cap", func(t *testing.T, path string) {
			data := validEntry(t, "")
			pad := dircache.MaxEntryBytes + 1 - len(data)
			data = validEntry(t, strings.Repeat("a", pad))
			require.Len(t, data, dircache.MaxEntryBytes+1)
			require.NoError(t, os.WriteFile(path, data, 0o600))
		}, false, "is 1048577 bytes, over the 1048576-byte cap"},
		{"a huge sparse file", func(t *testing.T, path string) {
			f, err := os.Create(path)
			require.NoError(t, err)
			require.NoError(t, f.Truncate(8<<30))
			require.NoError(t, f.Close())
		}, false, "is 8589934592 bytes, over the 1048576-byte cap"},
		{"an entry it may not read", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, validEntry(t, "secret"), 0o000))
		}, true, "permission denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needUser && os.Geteuid() == 0 {
				t.Skip("running as root: file permissions do not apply; run the tests as a user to cover this case")
			}
			dir := t.TempDir()
			c := dircache.New(dir, 0, nil)
			path := entryPath(dir, key)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			tc.put(t, path)

			// A guard, not a measure: a read that blocks fails the case
			// with the context's error instead of hanging the suite.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			got, ok, err := c.CachedMapAnswer(ctx, key)
			require.Error(t, err)
			assert.ErrorContains(t, err, path)
			assert.ErrorContains(t, err, tc.wantErr)
			assert.False(t, ok)
			assert.Zero(t, got)

			// A write replaces whatever was there with a real entry.
			want := globalsearch.CachedAnswer{Answer: "fresh", Usefulness: 10}
			if tc.name == "a directory" {
				err := c.CacheMapAnswer(t.Context(), key, want)
				assert.ErrorContains(t, err, "write map cache entry: rename ", "a directory is not replaced")
				assertNoTemporaryFiles(t, dir)
				return
			}
			require.NoError(t, c.CacheMapAnswer(t.Context(), key, want))
			got, ok, err = c.CachedMapAnswer(t.Context(), key)
			require.NoError(t, err)
			assert.True(t, ok)
			assert.Equal(t, want, got)
		})
	}
}

// TestDirWritesReplaceEntries pins the temporary file and rename: a write
// never touches the file an entry had, so a reader that opened the old
// entry reads it whole, and a link at the entry's name is replaced, not
// followed.
func TestDirWritesReplaceEntries(t *testing.T) {
	key := globalsearch.MapCacheKey("m", "p", 1)
	old := globalsearch.CachedAnswer{Answer: strings.Repeat("old ", 1000), Usefulness: 20}
	replacement := globalsearch.CachedAnswer{Answer: "new", Usefulness: 30}

	t.Run("a reader of the old entry reads it whole", func(t *testing.T) {
		dir := t.TempDir()
		c := dircache.New(dir, 0, nil)
		require.NoError(t, c.CacheMapAnswer(t.Context(), key, old))
		before, err := os.ReadFile(entryPath(dir, key))
		require.NoError(t, err)
		reader, err := os.Open(entryPath(dir, key))
		require.NoError(t, err)
		defer reader.Close()

		require.NoError(t, c.CacheMapAnswer(t.Context(), key, replacement))

		held, err := os.ReadFile(reader.Name())
		require.NoError(t, err)
		assert.Contains(t, string(held), `"answer":"new"`, "the name holds the new entry")
		var seen []byte
		buf := make([]byte, 512)
		for {
			n, err := reader.Read(buf)
			seen = append(seen, buf[:n]...)
			if err != nil {
				break
			}
		}
		assert.Equal(t, string(before), string(seen), "the open reader still reads the old entry, whole")
		assertNoTemporaryFiles(t, dir)
	})
	t.Run("a link at the entry's name is replaced, its target untouched", func(t *testing.T) {
		dir := t.TempDir()
		c := dircache.New(dir, 0, nil)
		target := filepath.Join(t.TempDir(), "elsewhere")
		require.NoError(t, os.WriteFile(target, []byte("not the cache's"), 0o600))
		require.NoError(t, os.MkdirAll(filepath.Dir(entryPath(dir, key)), 0o700))
		require.NoError(t, os.Symlink(target, entryPath(dir, key)))

		require.NoError(t, c.CacheMapAnswer(t.Context(), key, replacement))

		kept, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "not the cache's", string(kept))
		fi, err := os.Lstat(entryPath(dir, key))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), "the entry is a file of its own: %v", fi.Mode())
		got, ok, err := c.CachedMapAnswer(t.Context(), key)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, replacement, got)
	})
}

// assertNoTemporaryFiles checks that only entries are left in the cache.
func assertNoTemporaryFiles(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			assert.Regexp(t, `/[0-9a-f]{2}/[0-9a-f]{64}\.json$`, path)
		}
		return nil
	}))
}

// A standing record's file is read as a cache entry is: a link at its
// name (even to a valid record) is an error, not followed; a save keeps
// it, and a reset replaces the link rather than writing through it
// (docs/contract.md#standing-questions).
func TestStandingRefusesLinks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := dircache.NewStanding(dir, 0, nil)
	rec := globalsearch.StandingRecord{Namespace: "default", Name: "nightly", QueryID: "q-1", StartedAt: time.Now(),
		Question:    globalsearch.StandingQuestion{Query: "q", MapModel: "m"},
		Communities: []globalsearch.CommunityHash{{ID: "c1", Hash: "0123456789abcdef"}}}
	require.NoError(t, s.SaveStandingRecord(ctx, rec, false))
	name := filepath.Join(dir, "default", "nightly.json")
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	require.NoError(t, os.Rename(name, target))
	require.NoError(t, os.Symlink(target, name))

	_, err := s.StandingRecord(ctx, "default", "nightly")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a symbolic link, not a regular file")

	rec.QueryID = "q-2"
	rec.StartedAt = rec.StartedAt.Add(time.Second)
	require.Error(t, s.SaveStandingRecord(ctx, rec, false), "a save keeps what it cannot read")
	fi, err := os.Lstat(name)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link stays")
	require.NoError(t, s.SaveStandingRecord(ctx, rec, true))
	fi, err = os.Lstat(name)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced")
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-2", got.QueryID)
	before, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.NotContains(t, string(before), "q-2", "the link's target was not written")
}

// Whatever is at a standing record's name that is not a record the store
// wrote is an error naming the file, never "no previous run", and stays
// until a reset replaces it (docs/contract.md#standing-questions). The
// read neither waits on a named pipe nor reads /dev/zero without end.
func TestStandingUnreadableFiles(t *testing.T) {
	damages := map[string]func(t *testing.T, name string){
		"garbage": func(t *testing.T, name string) {
			require.NoError(t, os.WriteFile(name, []byte("garbage\x00\xff"), 0o600))
		},
		"a half-written file": func(t *testing.T, name string) {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(name, data[:len(data)/2], 0o600))
		},
		"a valid file whose record is damaged": func(t *testing.T, name string) {
			data, err := json.Marshal(map[string]any{"expiresAt": time.Now().Add(time.Hour).Unix(), "startedAt": 1, "record": []byte("not gzip")})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(name, data, 0o600))
		},
		"a link to /dev/zero": func(t *testing.T, name string) {
			require.NoError(t, os.Remove(name))
			require.NoError(t, os.Symlink("/dev/zero", name))
		},
		"a named pipe": func(t *testing.T, name string) {
			require.NoError(t, os.Remove(name))
			require.NoError(t, syscall.Mkfifo(name, 0o600))
		},
		"an oversized file": func(t *testing.T, name string) {
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
			require.NoError(t, err)
			require.NoError(t, f.Truncate(64<<20)) // sparse: 64 MiB of nothing
			require.NoError(t, f.Close())
		},
	}
	kinds := []string{"garbage", "a half-written file", "a valid file whose record is damaged", "a link to /dev/zero",
		"a named pipe", "an oversized file"}
	storetest.RunStandingUnreadable(t, kinds, func(t *testing.T, kind string) (globalsearch.Standing, func(string, string)) {
		dir := t.TempDir()
		return dircache.NewStanding(dir, 0, nil), func(ns, name string) {
			damages[kind](t, filepath.Join(dir, ns, name+".json"))
		}
	})
}
