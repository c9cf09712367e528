package globalsearch_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layers of the module (README "Architecture"). The domain
// (shared/globalsearch with shared/batch, shared/tokens and the helper
// shared/strictjson) defines the records, their rules and the ports.
// Adapters implement a port or translate a format, each against the domain
// alone. The edges (shared/api, shared/workflow) turn events into domain
// calls through the ports. Only the mains (cmd/*, functions/*) and tests
// wire adapters together.
const module = "github.com/graphrag-global/graphrag-global/"

var (
	domain   = []string{"shared/globalsearch", "shared/batch", "shared/tokens", "shared/strictjson"}
	adapters = []string{
		"shared/store", "shared/store/memstore", "shared/indexfile", "shared/graphrag",
		"shared/llm/bedrock", "shared/llm/offline", "shared/llm/openai", "shared/execution",
	}
	edges = []string{"shared/api", "shared/workflow"}
)

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
	allowed := map[string]bool{}
	for _, p := range domain {
		allowed[p] = true
	}
	tests := []struct {
		layer string
		pkgs  []string
	}{
		{"domain", domain},
		{"adapter", adapters},
		{"edge", edges},
	}
	for _, tc := range tests {
		for _, pkg := range tc.pkgs {
			t.Run(pkg, func(t *testing.T) {
				got := deps(t, pkg)
				for _, dep := range got {
					assert.True(t, allowed[dep], "%s %s depends on %s, which is not in the domain", tc.layer, pkg, dep)
				}
			})
		}
	}
}
