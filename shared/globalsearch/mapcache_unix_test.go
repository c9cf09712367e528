//go:build unix

package globalsearch_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
)

// lockedBuffer is a log sink for concurrent map calls.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMapCacheEntriesThatAreNotFiles replaces every entry of a warm cache
// directory with a named pipe: the run used to wait forever for a writer.
// Now each read is a logged miss and the run makes its map calls.
func TestMapCacheEntriesThatAreNotFiles(t *testing.T) {
	const batches = 3
	model := &fakeModel{complete: answerEverything}
	e, _ := newEngine(t, distinctLeaves(batches), model)
	dir := filepath.Join(t.TempDir(), "cache")
	e.Cache, e.ModelID = dircache.New(dir, 0, nil), "m"
	p := oneBatchPerSummary(t, "What grew?", nil)
	_, err := e.Search(t.Context(), p)
	require.NoError(t, err)
	require.Equal(t, batches, model.count(gs.StageMap))

	var entries []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".json") {
			entries = append(entries, path)
		}
		return err
	}))
	require.Len(t, entries, batches)
	for _, path := range entries {
		require.NoError(t, os.Remove(path))
		require.NoError(t, syscall.Mkfifo(path, 0o600))
	}
	logs := &lockedBuffer{}
	e.Logger = slog.New(slog.NewJSONHandler(logs, nil))

	// A guard, not a measure: a read that blocks fails the run instead of
	// hanging the suite.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := e.Search(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Zero(t, res.Diagnostics.Map.CacheHits)
	assert.Equal(t, batches, res.Diagnostics.Map.ModelCalls)
	assert.Equal(t, 2*batches, model.count(gs.StageMap))
	assert.Equal(t, batches, strings.Count(logs.String(), "is a named pipe, not a regular file"), logs.String())
}
