package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

const (
	ownMap = "Pirate analyst. Question: {{query}}\n<community_data>\n{{content}}\n</community_data>\n" +
		`Reply with {"answer": "...", "usefulness": 0-100} only.` + "\n"
	ownSystem = "Reply with one JSON object, arr.\n"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	return root
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
	return dir
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestBuild: a good directory becomes an overlay that replaces exactly the
// files it holds with checked copies; a bad one is refused by the rules of
// --prompts, naming the file, and leaves no overlay behind.
func TestBuild(t *testing.T) {
	root := repoRoot(t)
	tests := []struct {
		name    string
		files   map[string]string
		wantErr string
	}{
		{"map and system", map[string]string{"map.txt": ownMap, "system.txt": ownSystem}, ""},
		{"a bad map prompt", map[string]string{"map.txt": strings.Replace(ownMap, "<community_data>\n", "", 1)}, "map.txt: must frame {{content}} between a line <community_data>"},
		{"an unknown file", map[string]string{"map.txt": ownMap, "notes.md": "x"}, "notes.md: not a prompt file"},
		{"no prompt at all", nil, "holds none of map.txt, reduce.txt, system.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(root)
			dir, out := writeDir(t, tc.files), t.TempDir()
			var said bytes.Buffer
			err := build(dir, out, &said)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, dir, "the message names the directory")
				assert.ErrorContains(t, err, tc.wantErr)
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.NoFileExists(t, filepath.Join(out, "overlay.json"))
				return
			}
			require.NoError(t, err)
			var ov overlay
			data, err := os.ReadFile(filepath.Join(out, "overlay.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &ov))
			require.Len(t, ov.Replace, len(tc.files))
			for name, text := range tc.files {
				copyPath := ov.Replace[filepath.Join(root, "shared", "globalsearch", "prompts", name)]
				require.NotEmpty(t, copyPath, "%s is replaced", name)
				copied, err := os.ReadFile(copyPath)
				require.NoError(t, err)
				assert.Equal(t, text, string(copied))
				assert.Contains(t, said.String(), "prompts: the functions embed "+filepath.Join(dir, name)+" (sha256 "+digest(text)+")")
			}
		})
	}
}

// TestBuildOutsideTheRepository: the overlay names the files the functions
// embed, so it is refused where they are not.
func TestBuildOutsideTheRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	err := build(writeDir(t, map[string]string{"map.txt": ownMap}), t.TempDir(), &bytes.Buffer{})
	assert.ErrorContains(t, err, "run from the repository root")
}

// TestBuildRefusesALinkOutOfTheDirectory: the overlay reads a prompts
// directory by LoadPrompts' rules (docs/contract.md#custom-prompts), so a
// prompt that links out of it is never embedded, and nothing is written.
func TestBuildRefusesALinkOutOfTheDirectory(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "map.txt")
	require.NoError(t, os.WriteFile(outside, []byte(ownMap), 0o600))
	dir := writeDir(t, nil)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "map.txt")))
	out := t.TempDir()
	err := build(dir, out, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "map.txt")+" is a link to "+outside+", outside the folder")
	assert.NoFileExists(t, filepath.Join(out, "overlay.json"))
}

// TestFunctionStartsWithItsPrompts builds functions/prepare as make build
// does, with an overlay, and starts it with no configuration: with checked
// prompts its start-up log names their digests and no prompt problem; with
// an embedded prompt that breaks the rules (an overlay written by hand,
// past promptoverlay's check) it stops at start-up saying which and why.
func TestFunctionStartsWithItsPrompts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds functions/prepare twice; skipped with -short")
	}
	root := repoRoot(t)
	t.Chdir(root)
	good := t.TempDir()
	require.NoError(t, build(writeDir(t, map[string]string{"map.txt": ownMap, "system.txt": ownSystem}), good, &bytes.Buffer{}))
	bad := t.TempDir()
	badMap := filepath.Join(bad, "map.txt")
	require.NoError(t, os.WriteFile(badMap, []byte(strings.Replace(ownMap, "{{query}}", "the question", 1)), 0o600))
	ov, err := json.Marshal(overlay{Replace: map[string]string{filepath.Join(root, embeddedDir, "map.txt"): badMap}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bad, "overlay.json"), ov, 0o600))

	tests := []struct {
		name, overlay string
		wantDigests   map[string]string
		wantErr       string
	}{
		{"checked prompts", filepath.Join(good, "overlay.json"), map[string]string{"map.txt": digest(ownMap), "system.txt": digest(ownSystem)}, ""},
		{"a prompt that breaks the rules", filepath.Join(bad, "overlay.json"), nil, "embedded prompts/map.txt: lacks the placeholder {{query}}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bootstrap := filepath.Join(t.TempDir(), "bootstrap")
			cmd := exec.Command("go", "build", "-overlay", tc.overlay, "-tags", "lambda.norpc", "-trimpath", "-o", bootstrap, "./functions/prepare")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			msg, err := cmd.CombinedOutput()
			require.NoError(t, err, "build: %s", msg)

			run := exec.Command(bootstrap)
			run.Env = []string{"AWS_EC2_METADATA_DISABLED=true", "AWS_REGION=us-east-1"}
			stdout, err := run.Output()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the function stops without its configuration: %v", err)
			assert.Equal(t, 1, exit.ExitCode())
			logs := map[string]map[string]any{}
			for sc := bufio.NewScanner(bytes.NewReader(stdout)); sc.Scan(); {
				var line map[string]any
				require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
				logs[line["msg"].(string)] = line
			}
			require.Contains(t, logs, "configuration")
			config := logs["configuration"]["error"].(string)
			if tc.wantErr != "" {
				assert.Contains(t, config, tc.wantErr)
				return
			}
			assert.NotContains(t, config, "prompts")
			digests := logs["prompts"]["sha256"].(map[string]any)
			for name, want := range tc.wantDigests {
				assert.Equal(t, want, digests[name], name)
			}
			embedded, err := os.ReadFile(filepath.Join(embeddedDir, "reduce.txt"))
			require.NoError(t, err)
			assert.Equal(t, digest(string(embedded)), digests["reduce.txt"], "reduce.txt stays the project's")
		})
	}
}
