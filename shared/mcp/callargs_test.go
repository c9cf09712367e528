package mcp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// The call-setting arguments are enums of the request fields' values, and
// a value outside them is the request's refusal, which names the values
// (docs/contract.md#mcp-arguments), before any read or call.
func TestMCPCallSettingArguments(t *testing.T) {
	cs := connect(t, fileServer(writeIndex(t, smallIndex()), nil), nil)
	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	want := map[string][]any{
		"promptCache": {"off", "5m", "1h"}, "mapServiceTier": {"default", "priority", "flex", "reserved"},
		"reduceServiceTier": {"default", "priority", "flex", "reserved"}, "seedPolicy": {"question", "namespace"},
	}
	for _, tool := range tools.Tools {
		if tool.Name == "read" {
			continue
		}
		props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		for name, values := range want {
			assert.Equal(t, values, props[name].(map[string]any)["enum"], "%s: %s", tool.Name, name)
		}
	}
	tests := []struct{ arg, value, want string }{
		{"promptCache", "10m", "promptCache must be one of off, 5m, 1h"},
		{"mapServiceTier", "cheap", "mapServiceTier must be one of default, priority, flex, reserved"},
		{"reduceServiceTier", "fast", "reduceServiceTier must be one of default, priority, flex, reserved"},
		{"seedPolicy", "corpus", "seedPolicy must be one of question, namespace"},
	}
	for _, tc := range tests {
		for _, tool := range []string{"global_search", "plan_search"} {
			res := callTool(t, cs, tool, map[string]any{"query": "q", tc.arg: tc.value}, nil)
			assert.True(t, res.IsError, "%s %s", tool, tc.arg)
			assert.Contains(t, toolText(res), tc.want)
		}
	}
}

// mcp --seed-policy namespace (docs/contract.md#seed-policy): two
// questions plan with the one seed of the namespace version, which
// plan_search names with its derivation; a re-indexed namespace gets
// another, and a call may still ask for a fresh shuffle.
func TestMCPSeedPolicyNamespace(t *testing.T) {
	f, err := indexfile.Load(sampleIndex)
	require.NoError(t, err)
	idx := memstore.New()
	require.NoError(t, idx.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	s := storeServer(idx, nil)
	defaults := s.Defaults
	s.Defaults = func(ns string) (globalsearch.Defaults, error) {
		d, err := defaults(ns)
		d.Namespace, d.SeedPolicy = f.Namespace, globalsearch.SeedPolicyNamespace
		return d, err
	}
	cs := connect(t, s, nil)
	plan := func(query string, extra map[string]any) planToolOutput {
		args := map[string]any{"query": query}
		for k, v := range extra {
			args[k] = v
		}
		var out planToolOutput
		res := callTool(t, cs, "plan_search", args, &out)
		require.False(t, res.IsError, toolText(res))
		return out
	}
	first, second := plan("What changed in the fisheries?", nil), plan("Who paid for the new harbours?", nil)
	require.NotNil(t, first.SeedDerivation)
	assert.NotZero(t, first.ShuffleSeed)
	assert.Equal(t, first.ShuffleSeed, second.ShuffleSeed)
	assert.Equal(t, first.SeedDerivation, second.SeedDerivation)
	assert.Equal(t, first.Batches, second.Batches)

	fresh := plan("What changed in the fisheries?", map[string]any{"seedPolicy": "question"})
	assert.Nil(t, fresh.SeedDerivation)

	require.NoError(t, idx.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	reindexed := plan("What changed in the fisheries?", nil)
	require.NotNil(t, reindexed.SeedDerivation)
	assert.NotEqual(t, first.SeedDerivation.IndexVersion, reindexed.SeedDerivation.IndexVersion)
	assert.NotEqual(t, first.ShuffleSeed, reindexed.ShuffleSeed)
}
