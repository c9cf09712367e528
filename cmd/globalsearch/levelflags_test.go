package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestCommunityLevelFlag (docs/contract.md#graphrag-level): --community-level
// N plans what --level graphrag:N plans, --level keeps its meaning, and
// the two flags exclude each other.
func TestCommunityLevelFlag(t *testing.T) {
	// A lone root is a leaf at level 0: graphrag:1 maps it beside level 1.
	small := smallIndex()
	small.Records.Summaries = append(small.Records.Summaries, globalsearch.Summary{ID: "lone", Level: 0, Summary: "The ferry kept its timetable."})
	path := writeIndex(t, small)
	plan := func(t *testing.T, args ...string) (int, string, globalsearch.PlanReport) {
		env, stdout, errOut := testEnv("")
		code := runMain(context.Background(), env, append([]string{"plan", "--index", path, "--no-cache", "--query", "q", "--json", "--seed", "1"}, args...))
		var out globalsearch.PlanReport
		if code == 0 {
			require.NoError(t, json.NewDecoder(strings.NewReader(stdout.String())).Decode(&out))
		}
		return code, errOut.String(), out
	}
	for _, n := range []string{"0", "1", "2"} {
		code, errOut, flag := plan(t, "--community-level", n)
		require.Equal(t, 0, code, errOut)
		code, errOut, form := plan(t, "--level", "graphrag:"+n)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, form.SummaryCount, flag.SummaryCount, "level %s", n)
		assert.Equal(t, form.Batches, flag.Batches, "level %s", n)
	}
	_, _, exact := plan(t, "--level", "1")
	_, _, graphRAG := plan(t, "--community-level", "1")
	_, _, leaves := plan(t, "--level", "leaf")
	assert.Less(t, exact.SummaryCount, graphRAG.SummaryCount, "--level 1 is level 1 only; graphrag 1 adds the leaves above it")
	_, _, deepest := plan(t, "--community-level", "9")
	assert.Equal(t, leaves.SummaryCount, deepest.SummaryCount, "past the deepest level: every leaf")

	env, stdout, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"plan", "--index", path, "--no-cache", "--query", "q", "--community-level", "1"}), errOut.String())
	assert.Contains(t, stdout.String(), "level graphrag:1 (GraphRAG's community level 1): 2 summaries of level 1 and 1 leaf of the coarser levels\n",
		"the plan names what the level selected: fish and solar, and the lone root")

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"both flags", []string{"--level", "1", "--community-level", "1"}, "--level and --community-level exclude each other (--community-level N is --level graphrag:N)"},
		{"a negative level", []string{"--community-level", "-1"}, "--community-level must be a non-negative integer, GraphRAG's community level"},
		{"a word", []string{"--community-level", "leaf"}, "--community-level must be a non-negative integer, GraphRAG's community level"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, errOut, _ := plan(t, tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

// TestServeAndMCPLevelDefaults: serve's and mcp's --community-level is
// the level of a request that names none.
func TestServeAndMCPLevelDefaults(t *testing.T) {
	path := writeIndex(t, smallIndex())
	env, _, _ := testEnv("")
	o := &serveOptions{}
	set, err := cmdutil.Parse(newServeFlagSet(o, env), []string{"--index", path, "--no-cache", "--community-level", "1"})
	require.NoError(t, err)
	o.search.set = set
	cfg, err := serveConfig(context.Background(), env, &o.search)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.GraphRAGLevel(1), cfg.Defaults.CommunityLevel)

	srv := newMCPServer(env, mcpFlags(t, env, "--index", path, "--no-cache", "--level", "graphrag:1"))
	d, err := srv.Defaults("")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.GraphRAGLevel(1), d.CommunityLevel)
}
