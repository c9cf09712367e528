//go:build unix

package globalsearch_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A named pipe where a prompt should be is refused without being opened:
// opening it would wait for a writer that never comes.
func TestLoadPromptsRefusesANamedPipe(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "system.txt"), 0o600))
	_, err := gs.LoadPrompts(dir)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
	assert.EqualError(t, err, filepath.Join(dir, "system.txt")+" is not a regular file")
}
