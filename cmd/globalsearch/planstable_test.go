package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planDigests holds the SHA-256 of `plan --json --seed 7` on three indexes,
// recorded before a refactoring: a change that moves code but not
// behaviour must leave every plan byte-identical. A change that means to
// alter plans (a new rule, a new field) records the new digests with
//
//	UPDATE_PLAN_DIGESTS=1 go test ./cmd/globalsearch -run TestPlanIsByteIdentical
//
// and says why in its commit.
const planDigests = "testdata/plan-digests.txt"

const planQuery = "What are the main themes?"

// TestPlanIsByteIdentical plans the sample index, a generated
// 10,000-summary index and the Christmas Carol import (when ../shared holds
// it) and compares each plan's digest with the recorded one.
func TestPlanIsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a 10,000-summary index; skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	dir := t.TempDir()
	indexes := map[string]func(t *testing.T) string{
		"sample": func(*testing.T) string { return filepath.Join(root, "testdata", "sample-index.json") },
		"generated-10000": func(t *testing.T) string {
			out := filepath.Join(dir, "index-10000.json")
			cmd := exec.Command("go", "run", "./testdata/gen", "--summaries", "10000", "--out", out)
			cmd.Dir = root
			msg, err := cmd.CombinedOutput()
			require.NoError(t, err, "generate the index: %s", msg)
			return out
		},
		"christmas-carol": func(t *testing.T) string {
			corpus := filepath.Join(root, "..", "shared", "corpora", "christmas-carol")
			if _, err := os.Stat(corpus); err != nil {
				t.Skipf("the Christmas Carol output is not at %s (../shared/corpora beside the checkout)", corpus)
			}
			out := filepath.Join(dir, "carol.json")
			env, _, errOut := testEnv("")
			code := runMain(context.Background(), env, []string{"import", "graphrag", "--dir", corpus, "--out", out})
			require.Equal(t, 0, code, errOut.String())
			return out
		},
	}
	recorded := readPlanDigests(t)
	got := map[string]string{}
	for _, name := range []string{"sample", "generated-10000", "christmas-carol"} {
		t.Run(name, func(t *testing.T) {
			index := indexes[name](t)
			env, out, errOut := testEnv("")
			code := runMain(context.Background(), env, []string{"plan", "--index", index, "--query", planQuery, "--seed", "7", "--json", "--max-model-calls", "100000"})
			require.Equal(t, 0, code, errOut.String())
			sum := sha256.Sum256(out.Bytes())
			got[name] = hex.EncodeToString(sum[:])
			if os.Getenv("UPDATE_PLAN_DIGESTS") == "" {
				require.Contains(t, recorded, name, "no digest recorded for %s in %s", name, planDigests)
				assert.Equal(t, recorded[name], got[name], "plan --json --seed 7 of %s changed", name)
			}
		})
	}
	if os.Getenv("UPDATE_PLAN_DIGESTS") != "" {
		var b strings.Builder
		b.WriteString("# SHA-256 of `globalsearch plan --json --seed 7 --query \"" + planQuery + "\"` (TestPlanIsByteIdentical)\n")
		for _, name := range []string{"sample", "generated-10000", "christmas-carol"} {
			if d, ok := got[name]; ok {
				b.WriteString(name + " " + d + "\n")
			} else if d, ok := recorded[name]; ok {
				b.WriteString(name + " " + d + "\n") // not planned here (corpus absent): keep it
			}
		}
		require.NoError(t, os.WriteFile(planDigests, []byte(b.String()), 0o644))
	}
}

func readPlanDigests(t *testing.T) map[string]string {
	t.Helper()
	digests := map[string]string{}
	f, err := os.Open(planDigests)
	if os.IsNotExist(err) {
		return digests
	}
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, digest, ok := strings.Cut(line, " ")
		require.True(t, ok, "bad line in %s: %q", planDigests, line)
		digests[name] = digest
	}
	require.NoError(t, sc.Err())
	return digests
}
