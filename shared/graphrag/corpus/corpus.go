// Package corpus locates, for tests, the real GraphRAG corpora that live
// beside the repository (../shared/corpora, never inside it: see its README).
// A user's clone does not have them, so a test that needs one skips; CI
// does, so under CI=true a missing corpus fails the test instead of
// skipping it silently.
package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ChristmasCarol is Microsoft GraphRAG's output for "A Christmas Carol".
const ChristmasCarol = "christmas-carol"

// Dir returns the folder of the named corpus, or skips tb (fails it under
// CI=true) when the corpus is not there.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	dir := filepath.Join(corporaDir(tb), name)
	if _, err := os.Stat(filepath.Join(dir, "community_reports.parquet")); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("corpus missing under CI=true: %s: %v", dir, err)
		}
		tb.Skipf("real GraphRAG corpus not found at %s (it sits beside the repository; set CI=true to require it)", dir)
	}
	return dir
}

// Optional returns the folder of the corpora whose name holds match, in
// any case ("dulce" finds "operation dulce"), or skips tb when there is
// none, under CI too: CI is not promised every corpus.
func Optional(tb testing.TB, match string) string {
	tb.Helper()
	root := corporaDir(tb)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if strings.Contains(strings.ToLower(e.Name()), strings.ToLower(match)) {
			if _, err := os.Stat(filepath.Join(dir, "community_reports.parquet")); err == nil {
				return dir
			}
		}
	}
	tb.Skipf("no GraphRAG corpus whose name holds %q under %s", match, root)
	return ""
}

// corporaDir is ../shared/corpora beside the module's root.
func corporaDir(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			tb.Fatalf("no go.mod above %s", wd)
		}
		root = parent
	}
	return filepath.Join(filepath.Dir(root), "shared", "corpora")
}
