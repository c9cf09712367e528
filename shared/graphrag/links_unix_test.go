//go:build unix

package graphrag

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestImportRefusesLinksOutOfTheFolder: a file of the output folder that is
// a link leading out of the folder is refused, naming the file
// (docs/contract.md#import); a link within the folder, or a folder given
// through a link, is read. Following one out would read whatever the link
// names into an index, a file the user never meant to give.
func TestImportRefusesLinksOutOfTheFolder(t *testing.T) {
	tests := []struct {
		name    string
		arrange func(t *testing.T, dir, elsewhere string) string // the folder to import
		want    string                                           // "" reads
	}{
		{"a file linked from outside", func(t *testing.T, dir, elsewhere string) string {
			moveAndLink(t, filepath.Join(dir, "entities.parquet"), filepath.Join(elsewhere, "entities.parquet"))
			return dir
		}, "entities.parquet is a link to "},
		{"the reports linked from outside", func(t *testing.T, dir, elsewhere string) string {
			moveAndLink(t, filepath.Join(dir, "community_reports.parquet"), filepath.Join(elsewhere, "r.parquet"))
			return dir
		}, "community_reports.parquet is a link to "},
		{"a link through a linked subfolder", func(t *testing.T, dir, elsewhere string) string {
			require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, "sub")))
			moveAndLink(t, filepath.Join(dir, "covariates.parquet"), filepath.Join(elsewhere, "c.parquet"))
			require.NoError(t, os.Remove(filepath.Join(dir, "covariates.parquet")))
			require.NoError(t, os.Symlink(filepath.Join("sub", "c.parquet"), filepath.Join(dir, "covariates.parquet")))
			return dir
		}, "covariates.parquet is a link to "},
		{"a link within the folder", func(t *testing.T, dir, _ string) string {
			moveAndLink(t, filepath.Join(dir, "text_units.parquet"), filepath.Join(dir, "kept", "units.parquet"))
			return dir
		}, ""},
		{"the folder given through a link", func(t *testing.T, dir, elsewhere string) string {
			link := filepath.Join(elsewhere, "out")
			require.NoError(t, os.Symlink(dir, link))
			return link
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, elsewhere := t.TempDir(), t.TempDir()
			writeV3(t, dir)
			_, _, err := Import(context.Background(), tc.arrange(t, dir, elsewhere), Options{})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "outside the folder")
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		})
	}
}

// moveAndLink moves the file at path to target and leaves at path a link
// to it.
func moveAndLink(t *testing.T, path, target string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.Rename(path, target))
	require.NoError(t, os.Symlink(target, path))
}
