package globalsearch_test

import (
	"maps"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layers of the module (docs/architecture.md). The domain
// (shared/globalsearch with shared/batch, shared/tokens and the helpers
// shared/strictjson and shared/aimd) defines the records, their rules and the ports.
// Adapters implement a port or translate a format, each against the domain
// alone. The edges (shared/api, shared/workflow) turn events into domain
// calls through the ports. A platform format (shared/taskerror: the error
// a Step Functions task hands on) is no domain rule, but adapters and
// edges both read it, so both may import it, and it imports nothing of the
// module. Only the mains (cmd/*, functions/*), the harnesses, the wiring
// packages and tests wire adapters together: a wiring package
// (shared/llm/provider: a model spec to an open model; shared/indexsource:
// an index file, GraphRAG folder or table to an open index;
// shared/localengine: the CLI's in-process engine) is the mains' choice
// of adapter, shared by them, so it may import adapters but no edge. Every other package under shared/ is an adapter (or an
// adapter's conformance suite or test helper, held to the same rule): the
// list is read from the module, so a new adapter is checked the day it is
// added.
const module = "github.com/graphrag-global/graphrag-global/"

var (
	domain   = []string{"shared/globalsearch", "shared/batch", "shared/tokens", "shared/strictjson", "shared/aimd", "shared/lookup"}
	edges    = []string{"shared/api", "shared/workflow"}
	platform = []string{"shared/taskerror"}
	wiring   = []string{"shared/llm/provider", "shared/indexsource", "shared/localengine"}
	// harnesses run an edge in process on the local twins, for the CLI
	// (shared/lambdalocal: `globalsearch invoke`; shared/localserver: serve's
	// API and page): they may import the edges, the in-process twins (the
	// execution stand-in, the runs store) and serve's request guard, and no
	// other adapter.
	harnesses = []string{"shared/lambdalocal", "shared/localserver"}
	inProcess = []string{"shared/localrun", "shared/store/memstore", "shared/localhttp"}
)

// adapters lists the packages under shared/ that are neither in the domain,
// a platform format nor an edge (nor inside one: shared/workflow/e2e is the
// edges' test).
func adapters(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", module+"shared/...").CombinedOutput()
	require.NoError(t, err, string(out))
	var found []string
	for _, pkg := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(pkg, module)
		require.True(t, ok, "go list printed %q, outside the module", pkg)
		if !slices.Contains(domain, rest) && !slices.Contains(platform, rest) && !slices.Contains(wiring, rest) && !slices.Contains(harnesses, rest) && !slices.ContainsFunc(edges, func(e string) bool {
			return rest == e || strings.HasPrefix(rest, e+"/")
		}) {
			found = append(found, rest)
		}
	}
	return found
}

// The derived list holds the adapters a hand list once held, and the one it
// missed (the directory cache): a change to go list's output that dropped
// packages would otherwise pass unnoticed.
func TestAdaptersAreDerived(t *testing.T) {
	got := adapters(t)
	for _, want := range []string{
		"shared/store", "shared/store/memstore", "shared/store/dircache", "shared/indexfile", "shared/graphrag",
		"shared/llm/bedrock", "shared/llm/offline", "shared/llm/openai", "shared/execution",
	} {
		assert.Contains(t, got, want)
	}
	for _, p := range slices.Concat(domain, edges, platform, wiring, harnesses) {
		assert.NotContains(t, got, p)
	}
}

// deps lists the module's packages that pkg depends on, directly or not.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).CombinedOutput()
	require.NoError(t, err, string(out))
	var mine []string
	for _, dep := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(dep, module); ok && rest != pkg {
			mine = append(mine, rest)
		}
	}
	return mine
}

// A change to one adapter (the store's item layout, the index file's
// format, a model's API) must not reach another; the rules records obey
// live in the domain so that every adapter applies the same ones.
func TestNoAdapterImportsAnother(t *testing.T) {
	inDomain, outside := map[string]bool{}, map[string]bool{}
	for _, p := range domain {
		inDomain[p], outside[p] = true, true
	}
	for _, p := range platform {
		outside[p] = true
	}
	// A wiring package may reach every adapter and the other wiring
	// (shared/localengine opens models through shared/llm/provider), not
	// an edge.
	adapterPkgs, withAdapters := adapters(t), map[string]bool{}
	for p := range outside {
		withAdapters[p] = true
	}
	for _, p := range slices.Concat(adapterPkgs, wiring) {
		withAdapters[p] = true
	}
	harnessMay := maps.Clone(outside)
	for _, p := range slices.Concat(edges, inProcess) {
		harnessMay[p] = true
	}
	tests := []struct {
		layer   string
		pkgs    []string
		allowed map[string]bool
	}{
		{"domain", domain, inDomain},
		{"platform format", platform, map[string]bool{}},
		{"adapter", adapterPkgs, outside},
		{"edge", edges, outside},
		{"wiring", wiring, withAdapters},
		{"harness", harnesses, harnessMay},
	}
	for _, tc := range tests {
		for _, pkg := range tc.pkgs {
			t.Run(pkg, func(t *testing.T) {
				got := deps(t, pkg)
				for _, dep := range got {
					assert.True(t, tc.allowed[dep] || fixtureOf(pkg, dep), "%s %s depends on %s, which it may not", tc.layer, pkg, dep)
				}
			})
		}
	}
}

// fixtureOf reports whether pkg is the test fixtures of dep
// (shared/indexfile/indexfiletest of shared/indexfile): fixtures written
// with their adapter's own types import it and nothing else of its layer.
func fixtureOf(pkg, dep string) bool {
	dir, name := path.Split(pkg)
	return strings.HasSuffix(name, "test") && strings.TrimSuffix(dir, "/") == dep && name == path.Base(dep)+"test"
}
