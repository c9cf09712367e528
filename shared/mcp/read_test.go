package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

func TestReadToolShowsRecords(t *testing.T) {
	f := indexfiletest.Graph()
	cs := connect(t, fileServer(writeIndex(t, f), nil), nil)
	tests := []struct {
		name  string
		args  map[string]any
		check func(t *testing.T, out readOutput)
	}{
		{"a community with its entities", map[string]any{"id": "root"}, func(t *testing.T, out readOutput) {
			require.NotNil(t, out.Record)
			require.NotNil(t, out.Record.Community)
			assert.Equal(t, f.Namespace, out.Record.Namespace)
			assert.Equal(t, f.Entities, out.Record.Community.Entities)
			assert.Equal(t, f.Relationships, out.Record.Community.Relationships)
			assert.Equal(t, f.Chunks[0].TextUnitID, out.Record.Community.Excerpts[0].TextUnitID)
		}},
		{"a limit", map[string]any{"id": "root", "limit": 1}, func(t *testing.T, out readOutput) {
			assert.Equal(t, map[string]int{"entities": 1}, out.Record.Community.Omitted)
		}},
		{"a chunk by kind", map[string]any{"id": "c1", "kind": "chunk", "namespace": f.Namespace}, func(t *testing.T, out readOutput) {
			assert.Equal(t, &f.Chunks[0], out.Record.Chunk)
		}},
		{"no id: the communities by level", map[string]any{}, func(t *testing.T, out readOutput) {
			require.NotNil(t, out.Reports)
			assert.Equal(t, f.Namespace, out.Reports.Namespace)
			assert.Len(t, out.Reports.Levels, 2)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out readOutput
			res := callTool(t, cs, "read", tt.args, &out)
			require.False(t, res.IsError, toolText(res))
			tt.check(t, out)
		})
	}
}

func TestReadToolRefusesWhatNamesNothing(t *testing.T) {
	cs := connect(t, fileServer(writeIndex(t, indexfiletest.Graph()), nil), nil)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"an unknown id", map[string]any{"id": "nope"}, `has id nope in namespace "tiny"`},
		{"the way to ids", map[string]any{"id": "nope"}, "read without an id lists the communities"},
		{"a bad kind", map[string]any{"id": "root", "kind": "report"}, "kind must be one of"},
		{"a limit of 0", map[string]any{"id": "root", "limit": 0}, "limit must be from 1 to 1000, not 0"},
		{"a limit too large", map[string]any{"id": "root", "limit": 1001}, "limit must be from 1 to 1000"},
		{"a forged id", map[string]any{"id": "a]b"}, "ids may not hold"},
		{"a bad namespace", map[string]any{"id": "root", "namespace": "Bad!"}, "namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, cs, "read", tt.args, nil)
			require.True(t, res.IsError)
			assert.Contains(t, toolText(res), tt.want)
		})
	}
	broken := fileServer(writeIndex(t, indexfiletest.Graph()), nil)
	broken.Defaults = func(string) (globalsearch.Defaults, error) { return globalsearch.Defaults{}, assert.AnError }
	res := callTool(t, connect(t, broken, nil), "read", map[string]any{"id": "root"}, nil)
	require.True(t, res.IsError)
	assert.Contains(t, toolText(res), assert.AnError.Error(), "the defaults' error is the call's")
}

func TestCompactReplyNamesTheReadTool(t *testing.T) {
	cs := connect(t, fileServer(writeIndex(t, titledIndex()), nil), nil)
	var out searchOutput
	res := callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?", "level": 1}, &out)
	require.False(t, res.IsError, toolText(res))
	require.NotEmpty(t, out.Communities)
	assert.Equal(t, readHint, out.Read)
	res = callTool(t, cs, "global_search", map[string]any{"query": "How did solar power change?", "level": 1, "detail": "full"}, &out)
	require.False(t, res.IsError, toolText(res))
	var full map[string]any
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &full))
	assert.NotContains(t, full, "read", "a full reply holds the ids already")
}

// The reply an agent reads of a Christmas Carol community, with read's
// default limit: its size is in the test log (go test -v -run
// TestReadToolChristmasCarolReplySize).
func TestReadToolChristmasCarolReplySize(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	records, _, err := graphrag.Import(t.Context(), dir, graphrag.Options{})
	require.NoError(t, err)
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(t.Context(), "default", records))
	cs := connect(t, storeServer(s, nil), nil)
	var out readOutput
	res := callTool(t, cs, "read", map[string]any{"id": "0"}, &out)
	require.False(t, res.IsError, toolText(res))
	require.NotNil(t, out.Record.Community)
	assert.Len(t, out.Record.Community.Entities, readDefaultLimit)
	assert.Positive(t, out.Record.Community.Omitted["entities"])
	var all int
	for _, c := range res.Content {
		data, err := json.Marshal(c)
		require.NoError(t, err)
		all += len(data)
	}
	t.Logf("read {id: 0} on Christmas Carol: %d bytes of content, %d entities of %d", all, len(out.Record.Community.Entities), len(out.Record.Community.Entities)+out.Record.Community.Omitted["entities"])
	assert.Less(t, all, 64<<10, "a reply an agent can afford")
}

// TestReadToolArguments: read reads its arguments as the search tools do
// (docs/contract.md#mcp-arguments): a value of the wrong type, or an
// argument read does not take, is one sentence naming the argument sent,
// not a schema path; its schema lists the kinds and the limit's bounds.
func TestReadToolArguments(t *testing.T) {
	cs := connect(t, fileServer(writeIndex(t, indexfiletest.Graph()), nil), nil)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"an id of the wrong type", map[string]any{"id": 5}, "id must be a string"},
		{"a kind of the wrong type", map[string]any{"id": "root", "kind": true}, "kind must be a string"},
		{"a namespace of the wrong type", map[string]any{"id": "root", "namespace": []string{"tiny"}}, "namespace must be a string"},
		{"a limit as a string", map[string]any{"id": "root", "limit": "10"}, "limit must be an integer"},
		{"a fractional limit", map[string]any{"id": "root", "limit": 2.5}, "limit must be an integer"},
		{"an unknown argument", map[string]any{"id": "root", "level": 1}, `unknown argument "level": the arguments are id, kind, limit, namespace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, cs, "read", tt.args, nil)
			require.True(t, res.IsError)
			assert.Equal(t, tt.want, toolText(res))
		})
	}
	t.Run("null is an argument left out", func(t *testing.T) {
		res := callTool(t, cs, "read", map[string]any{"id": "root", "limit": nil}, nil)
		assert.False(t, res.IsError, toolText(res))
	})
	tools, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	for _, tool := range tools.Tools {
		if tool.Name != "read" {
			continue
		}
		props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		assert.Equal(t, []any{"community", "claim", "chunk", "entity", "relationship"}, props["kind"].(map[string]any)["enum"])
		limit := props["limit"].(map[string]any)
		assert.Equal(t, []any{1.0, 1000.0}, []any{limit["minimum"], limit["maximum"]})
	}
}
