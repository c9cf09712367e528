//go:build unix

package globalsearch_test

import (
	"os"
	"path/filepath"
	"strings"
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

// TestLoadPromptsRefusesLinksOutOfTheDirectory: a prompt file that is a
// link leading out of the prompts directory is refused, naming the file
// (docs/contract.md#custom-prompts): `p/system.txt -> /etc/passwd` would
// send that file to the model with every call. A link within the
// directory, and a directory given through a link, are read.
func TestLoadPromptsRefusesLinksOutOfTheDirectory(t *testing.T) {
	const system = "You answer from the data given.\n"
	tests := []struct {
		name    string
		arrange func(t *testing.T, dir, elsewhere string) string // the directory to load
		want    string                                           // "" loads
	}{
		{"a link to a file outside", func(t *testing.T, dir, elsewhere string) string {
			outside := filepath.Join(elsewhere, "passwd")
			require.NoError(t, os.WriteFile(outside, []byte(system), 0o600))
			require.NoError(t, os.Symlink(outside, filepath.Join(dir, "system.txt")))
			return dir
		}, "system.txt is a link to "},
		{"a relative link up and out", func(t *testing.T, dir, elsewhere string) string {
			require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(dir), "up.txt"), []byte(system), 0o600))
			require.NoError(t, os.Symlink(filepath.Join("..", "up.txt"), filepath.Join(dir, "system.txt")))
			return dir
		}, "system.txt is a link to "},
		{"a link within the directory", func(t *testing.T, dir, _ string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".system-v2"), []byte(system), 0o600))
			require.NoError(t, os.Symlink(".system-v2", filepath.Join(dir, "system.txt")))
			return dir
		}, ""},
		{"the directory given through a link", func(t *testing.T, dir, elsewhere string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "system.txt"), []byte(system), 0o600))
			link := filepath.Join(elsewhere, "p")
			require.NoError(t, os.Symlink(dir, link))
			return link
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "p")
			require.NoError(t, os.Mkdir(dir, 0o755))
			loaded := tc.arrange(t, dir, t.TempDir())
			p, err := gs.LoadPrompts(loaded)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, strings.TrimSpace(system), p.System)
				return
			}
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.Contains(t, err.Error(), filepath.Join(loaded, tc.want))
			assert.Contains(t, err.Error(), "outside the folder")
		})
	}
}
