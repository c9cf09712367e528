package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

func TestMCPTools(t *testing.T) {
	cs := connect(t, withPrices(fileServer(writeIndex(t, titledIndex()), nil)), nil)

	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	inputs := map[string][]string{}
	for _, tool := range tools.Tools {
		schema, ok := tool.InputSchema.(map[string]any)
		require.True(t, ok, "%s: %T", tool.Name, tool.InputSchema)
		properties, ok := schema["properties"].(map[string]any)
		require.True(t, ok, tool.Name)
		for name, p := range properties {
			inputs[tool.Name] = append(inputs[tool.Name], name)
			// docs/contract.md#mcp-arguments: every argument is typed.
			prop := p.(map[string]any)
			if name == "level" {
				var kinds []any
				for _, alt := range prop["anyOf"].([]any) {
					kinds = append(kinds, alt.(map[string]any)["type"])
				}
				assert.ElementsMatch(t, []any{"string", "integer", "string"}, kinds, tool.Name)
				continue
			}
			assert.NotEmpty(t, prop["type"], "%s: %s has a type", tool.Name, name)
		}
		assert.Equal(t, false, schema["additionalProperties"], "%s: no argument but these", tool.Name)
	}
	search := []string{"query", "namespace", "level", "graphragLevel", "maxMapInputTokens", "responseType", "selection", "reduceMode",
		"promptCache", "mapServiceTier", "reduceServiceTier", "seedPolicy"}
	assert.ElementsMatch(t, append(search, "detail"), inputs["global_search"])
	assert.ElementsMatch(t, search, inputs["plan_search"])
	assert.ElementsMatch(t, []string{"id", "namespace", "kind", "limit"}, inputs["read"])
	assert.Len(t, inputs, 3, "three tools")

	var out searchOutput
	res := callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?", "level": 1, "responseType": "one sentence"}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, globalsearch.StatusCompleted, out.Status)
	assert.Contains(t, strings.ToLower(out.Answer), "solar")
	require.NotEmpty(t, out.Communities)
	assert.Contains(t, out.Communities, citedCommunity{ID: "solar", Title: "Island solar"})
	assert.Empty(t, out.Citations, "claims and chunks only on request")
	assert.Empty(t, out.Note)
	assert.Positive(t, out.ModelCalls)

	var plan planToolOutput
	res = callTool(t, cs, "plan_search", map[string]any{"query": "How did solar power change?", "level": "1"}, &plan)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, 2, plan.Summaries)
	require.Positive(t, plan.Batches)
	assert.Equal(t, 2*plan.Batches+2, plan.MaxModelCalls)
	assert.Positive(t, plan.EstimatedTokens)
	require.NotNil(t, plan.CostUSD, "prices are set")
	assert.Positive(t, *plan.CostUSD)
	assert.Empty(t, plan.LevelUsed, "a fixed level")

	var auto planToolOutput
	res = callTool(t, cs, "plan_search", map[string]any{"query": "How did solar power change?", "level": "auto", "maxMapInputTokens": 100000}, &auto)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, "leaf", auto.LevelUsed, "docs/contract.md#auto-level: everything fits, the leaves")
}

func TestMCPPlanWithoutPricesHasNoCost(t *testing.T) {
	cs := connect(t, fileServer(writeIndex(t, smallIndex()), nil), nil)
	var plan planToolOutput
	res := callTool(t, cs, "plan_search", map[string]any{"query": "q"}, &plan)
	require.False(t, res.IsError, toolText(res))
	assert.Nil(t, plan.CostUSD)
}

// TestMCPDeepLevelIsAToolError: a level nested past the strict reader's
// limit is invalid input naming it, not a parse that grows with the depth.
func TestMCPDeepLevelIsAToolError(t *testing.T) {
	cs := connect(t, fileServer(writeIndex(t, smallIndex()), nil), nil)
	var level any = 1
	for range strictjson.MaxDepth {
		level = []any{level}
	}
	res := callTool(t, cs, "plan_search", map[string]any{"query": "q", "level": level}, nil)
	assert.True(t, res.IsError)
	assert.Equal(t, levelArgRule, toolText(res), "an array is no level, however deep")
}

// TestMCPToolRequest: a tool's input becomes the request JSON a client
// would send (docs/contract.md#mcp-arguments): the level in any of its
// forms, graphragLevel as "graphrag:N", reduceMode as sent.
func TestMCPToolRequest(t *testing.T) {
	five, two := int64(5), 2
	level := func(raw string) levelArg {
		var l levelArg
		require.NoError(t, json.Unmarshal([]byte(raw), &l), raw)
		return l
	}
	tests := []struct {
		name string
		in   searchInput
		seed *int64
		want string
	}{
		{"query only", searchInput{Query: "q"}, nil, `{"query":"q"}`},
		{"leaf", searchInput{Query: "q", Level: level(`"leaf"`)}, nil, `{"query":"q","communityLevel":"leaf"}`},
		{"a level number as a string", searchInput{Query: "q", Level: level(`"2"`)}, nil, `{"query":"q","communityLevel":2}`},
		{"a level number", searchInput{Query: "q", Level: level(`2`)}, nil, `{"query":"q","communityLevel":2}`},
		{"GraphRAG's level as a level", searchInput{Query: "q", Level: level(`"graphrag:2"`)}, nil, `{"query":"q","communityLevel":"graphrag:2"}`},
		{"graphragLevel", searchInput{Query: "q", GraphRAGLevel: &two}, nil, `{"query":"q","communityLevel":"graphrag:2"}`},
		{"reduceMode as sent", searchInput{Query: "q", ReduceMode: "tree"}, nil, `{"query":"q","reduceMode":"tree"}`},
		{"namespace, response type and the flags' seed", searchInput{Query: "q", Namespace: "tiny", ResponseType: "one line"}, &five,
			`{"query":"q","namespace":"tiny","responseType":"one line","shuffleSeed":5}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := (&Server{Seed: tc.seed}).tools().request(tc.in)
			require.NoError(t, err)
			data, err := json.Marshal(req)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(data))
		})
	}
	// A map concurrency (`--concurrency N`) is every search's
	// mapConcurrency; none (`--concurrency auto`) leaves it to the default
	// and adapts (docs/contract.md#auto-concurrency).
	three := 3
	for _, tc := range []struct {
		name  string
		calls *int
		want  string
	}{{"3", &three, `{"query":"q","mapConcurrency":3}`}, {"auto", nil, `{"query":"q"}`}} {
		t.Run("map concurrency "+tc.name, func(t *testing.T) {
			req, err := (&Server{MapConcurrency: tc.calls}).tools().request(searchInput{Query: "q"})
			require.NoError(t, err)
			data, err := json.Marshal(req)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(data))
		})
	}
	minus := -1
	for _, tc := range []struct {
		name string
		in   searchInput
		want string
	}{
		{"both levels", searchInput{Query: "q", Level: level(`1`), GraphRAGLevel: &two}, `level and graphragLevel exclude each other: graphragLevel N is level "graphrag:N"`},
		{"a negative graphragLevel", searchInput{Query: "q", GraphRAGLevel: &minus}, "graphragLevel must be a non-negative integer, GraphRAG's community level"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Server{}).tools().request(tc.in)
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestMCPLevelArgument: every form of the level argument is read by its
// rule, and every other value is refused naming level.
func TestMCPLevelArgument(t *testing.T) {
	tests := []struct {
		raw  string
		want globalsearch.Level
		ok   bool
	}{
		{`"leaf"`, globalsearch.LeafLevel, true},
		{`"auto"`, globalsearch.AutoLevel, true},
		{`0`, 0, true},
		{`"12"`, 12, true},
		{`"graphrag:0"`, globalsearch.GraphRAGLevel(0), true},
		{`"graphrag:3"`, globalsearch.GraphRAGLevel(3), true},
		{`1e2`, 0, false},
		{`2.0`, 0, false},
		{`-1`, 0, false},
		{`"-1"`, 0, false},
		{`" 2"`, 0, false},
		{`"02"`, 0, false},
		{`"top"`, 0, false},
		{`"graphrag:"`, 0, false},
		{`"graphrag:-1"`, 0, false},
		{`"graphrag:1e2"`, 0, false},
		{`"graphrag:99999999999"`, 0, false},
		{`true`, 0, false},
		{`{}`, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			var l levelArg
			err := json.Unmarshal([]byte(tc.raw), &l)
			if !tc.ok {
				require.Error(t, err)
				assert.Equal(t, levelArgRule, err.Error())
				return
			}
			require.NoError(t, err)
			assert.True(t, l.given)
			assert.Equal(t, tc.want, l.level)
		})
	}
}

// TestMCPToolPanicIsAToolError: a tool call that panics (a map worker's
// panic comes back to the call's goroutine as a globalsearch.WorkerPanic)
// answers that call with an internal error and leaves the server serving,
// its stack on stderr.
func TestMCPToolPanicIsAToolError(t *testing.T) {
	tests := []struct {
		name      string
		value     any
		wantStack string
	}{
		{"in the call", "nil map", "server_test.go"},
		{"in a map worker", &globalsearch.WorkerPanic{Value: "nil map", Stack: []byte("worker frame\n")}, "worker frame"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			h := guardTool(&errOut, func(context.Context, *sdk.CallToolRequest, globalSearchInput) (*sdk.CallToolResult, searchOutput, error) {
				panic(tc.value)
			})
			res, out, err := h(context.Background(), nil, globalSearchInput{searchInput: searchInput{Query: "q"}})
			assert.Nil(t, res)
			assert.Equal(t, searchOutput{}, out)
			require.EqualError(t, err, "internal error: nil map")
			assert.Contains(t, errOut.String(), "globalsearch mcp: internal error: nil map\n")
			assert.Contains(t, errOut.String(), tc.wantStack)
		})
	}
}

// The MCP tools take selection as the CLI's --selection: global_search's
// model calls include the rating calls, plan_search's most model calls the
// most rating calls.
func TestMCPDynamicSelection(t *testing.T) {
	path := writeIndex(t, titledIndex())
	cs := connect(t, fileServer(path, nil), nil)
	const q = "How did solar power change the harbour economy?"
	var out searchOutput
	res := callTool(t, cs, "global_search", map[string]any{"query": q, "selection": "dynamic"}, &out)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, globalsearch.StatusCompleted, out.Status)
	// The root speaks to the whole question and neither child does (each
	// holds one of its words), so the root is mapped, not a leaf.
	assert.Equal(t, []citedCommunity{{ID: "root", Title: "Harbour economy"}}, out.Communities)
	assert.Equal(t, 4, out.ModelCalls, "two rating calls, one map call, one reduce call")

	var plan planToolOutput
	res = callTool(t, cs, "plan_search", map[string]any{"query": q, "selection": "dynamic"}, &plan)
	require.False(t, res.IsError, toolText(res))
	assert.Equal(t, 2*plan.Batches+2+4, plan.MaxModelCalls, "the leaf plan's calls and two rounds of one rating batch, twice each")
	assert.Positive(t, plan.RatingTokens, "the rating input is counted beside the map's")

	var level planToolOutput
	require.False(t, callTool(t, cs, "plan_search", map[string]any{"query": q}, &level).IsError)
	assert.Zero(t, level.RatingTokens, "a selection by level rates nothing")

	res = callTool(t, cs, "global_search", map[string]any{"query": q, "selection": "auto"}, &out)
	require.True(t, res.IsError)
	assert.Contains(t, toolText(res), `selection must be "level" or "dynamic"`)
}
