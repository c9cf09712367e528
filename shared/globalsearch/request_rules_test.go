package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// TestParseRequestNumberRule: a request's integers are read by the rule an
// index file's are (docs/contract.md#strict-json): written in digits, so
// 1e2 and 1.0 get the field's own message, and -0 is 0.
func TestParseRequestNumberRule(t *testing.T) {
	tests := []struct {
		name, body, want string
		check            func(t *testing.T, p gs.Params)
	}{
		{name: "level 1e2", body: `{"query":"q","communityLevel":1e2}`, want: `communityLevel must be "leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`},
		{name: "level 1.0", body: `{"query":"q","communityLevel":1.0}`, want: `communityLevel must be "leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`},
		{name: "level -0", body: `{"query":"q","communityLevel":-0}`, check: func(t *testing.T, p gs.Params) { assert.Equal(t, gs.Level(0), p.CommunityLevel) }},
		{name: "mapConcurrency 1e2", body: `{"query":"q","mapConcurrency":1e2}`, want: "mapConcurrency must be a positive integer"},
		{name: "mapConcurrency 5.0", body: `{"query":"q","mapConcurrency":5.0}`, want: "mapConcurrency must be a positive integer"},
		{name: "mapTokenBudget 1e4", body: `{"query":"q","mapTokenBudget":1e4}`, want: "mapTokenBudget must be"},
		{name: "maxModelCalls 1E2", body: `{"query":"q","maxModelCalls":1E2}`, want: "maxModelCalls must be a positive integer"},
		{name: "shuffleSeed -0", body: `{"query":"q","shuffleSeed":-0}`, check: func(t *testing.T, p gs.Params) {
			assert.Equal(t, int64(0), p.ShuffleSeed)
			assert.False(t, p.SeedGenerated, "-0 is a seed given")
		}},
		{name: "mapOutputReserve -0", body: `{"query":"q","mapOutputReserve":-0}`, check: func(t *testing.T, p gs.Params) { assert.Equal(t, 0, p.MapOutputReserve) }},
		{name: "mapConcurrency -0", body: `{"query":"q","mapConcurrency":-0}`, want: "mapConcurrency must be a positive integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gs.ParseRequest([]byte(tc.body), gs.SpecDefaults)
			if tc.want == "" {
				require.NoError(t, err)
				tc.check(t, p)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
		})
	}
}

// TestParseLevelNumberRule: a level typed on the command line or given to
// the MCP tool is read by the same rule.
func TestParseLevelNumberRule(t *testing.T) {
	tests := []struct {
		in   string
		want gs.Level
		ok   bool
	}{
		{"1e2", 0, false},
		{"1.0", 0, false},
		{"-0", 0, true},
		{"2", 2, true},
		{"leaf", gs.LeafLevel, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			l, err := gs.ParseLevel(tc.in)
			assert.Equal(t, tc.ok, err == nil, "error %v", err)
			assert.Equal(t, tc.want, l)
		})
	}
}

// TestRequestTextRule: a request whose text is not UTF-8 is refused, by
// JSON or built in Go (docs/contract.md#strict-json); encoding/json alone
// reads it as U+FFFD and the search would run on other text.
func TestRequestTextRule(t *testing.T) {
	bad := "themes \xff"
	tests := []struct {
		name string
		run  func() (gs.Params, error)
		want string
	}{
		{"raw invalid byte in query", func() (gs.Params, error) {
			return gs.ParseRequest([]byte("{\"query\":\"themes \xff\"}"), gs.SpecDefaults)
		}, "request: " + strictjson.NotUTF8 + " in query (byte offset 19)"},
		{"escaped lone surrogate in query", func() (gs.Params, error) {
			return gs.ParseRequest([]byte(`{"query":"themes \ud800"}`), gs.SpecDefaults)
		}, "request: " + strictjson.NotUTF8 + " in query (byte offset 24)"},
		{"invalid byte in responseType", func() (gs.Params, error) {
			return gs.ParseRequest([]byte("{\"query\":\"q\",\"responseType\":\"a \xc0 list\"}"), gs.SpecDefaults)
		}, "request: " + strictjson.NotUTF8 + " in responseType (byte offset 38)"},
		{"query built in Go", func() (gs.Params, error) { return gs.Request{Query: bad}.Params(gs.SpecDefaults) },
			"request: " + strictjson.NotUTF8 + " in query"},
		{"responseType built in Go", func() (gs.Params, error) {
			return gs.Request{Query: "q", ResponseType: &bad}.Params(gs.SpecDefaults)
		}, "request: " + strictjson.NotUTF8 + " in responseType"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.run()
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
		})
	}
	_, err := gs.ParseRequest([]byte(`{"query":"themes \ud83d\ude00 中文"}`), gs.SpecDefaults)
	assert.NoError(t, err, "a surrogate pair is UTF-8 text")
}
