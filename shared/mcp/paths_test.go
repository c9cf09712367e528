package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolvePaths(t *testing.T) {
	rel, abs, empty := filepath.Join("a", "b"), filepath.Join(string(filepath.Separator), "x"), ""
	ResolvePaths("/work", &rel, &abs, &empty)
	assert.Equal(t, filepath.Join("/work", "a", "b"), rel)
	assert.Equal(t, filepath.Join(string(filepath.Separator), "x"), abs, "an absolute path stays")
	assert.Empty(t, empty, "a flag not given stays not given")
}

// TestPathProblems (docs/mcp.md#paths): each wrong path is named with
// what is wrong, at start on the log and in the call's error alike.
func TestPathProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "index.json")
	require.NoError(t, os.WriteFile(file, []byte("{}"), 0o600))
	missing := filepath.Join(dir, "gone")
	tests := []struct {
		name string
		path Path
		want string
	}{
		{"not given", Path{Flag: "--index"}, ""},
		{"a file", Path{Flag: "--index", Path: file}, ""},
		{"a folder", Path{Flag: "--graphrag", Path: dir, Folder: true}, ""},
		{"no such folder", Path{Flag: "--graphrag", Path: missing, Folder: true},
			"--graphrag names " + missing + ", and there is no such folder (relative paths are resolved against the working directory the MCP client started this server in, /wd: give an absolute path in the client config)"},
		{"no such file", Path{Flag: "--index", Path: missing},
			"--index names " + missing + ", and there is no such file (relative paths are resolved against the working directory the MCP client started this server in, /wd: give an absolute path in the client config)"},
		{"a file for a folder: the opener's to refuse", Path{Flag: "--graphrag", Path: file, Folder: true}, ""},
		{"unreadable", Path{Flag: "--index", Path: filepath.Join(file, "x")}, "--index names " + filepath.Join(file, "x") + ", which cannot be read: stat " + filepath.Join(file, "x") + ": not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{Paths: []Path{tc.path}, WorkDir: "/wd"}
			var log bytes.Buffer
			s.reportPaths(&log)
			err := s.checkPaths()
			if tc.want == "" {
				assert.Empty(t, log.String())
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, "globalsearch mcp: "+tc.want+"\n", log.String())
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
