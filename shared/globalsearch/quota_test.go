package globalsearch_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// batchesOf is n map calls of tokens estimated input tokens each.
func batchesOf(n, tokens int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = tokens
	}
	return out
}

// TestSizeMap pins the arithmetic of docs/contract.md#quota. T is the
// call time (10 s unless given); each call reserves its input plus
// weight x maxTokens; ETA = max(ceil(n / C) x T, reserved / TPM x 60,
// n / RPM x 60) + T for the reduce, rounded up to a second.
func TestSizeMap(t *testing.T) {
	sonnet := func(in []int) globalsearch.MapLoad {
		return globalsearch.MapLoad{InputTokens: in, OutputReserve: 512, OutputWeight: 5}
	}
	cases := []struct {
		name  string
		quota globalsearch.Quota
		load  globalsearch.MapLoad
		caps  globalsearch.MapCaps
		want  globalsearch.MapSizing
	}{
		// No quota: the default, ceil(10/4) = 3 waves = 30 s, + 10 s.
		{"unknown quota: the default", globalsearch.Quota{}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 40}},
		// ceil(10/2) = 5 waves = 50 s, + 10 s.
		{"unknown quota: the request's own", globalsearch.Quota{}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Requested: 2, Default: 4, Max: 8},
			globalsearch.MapSizing{MapConcurrency: 2, ETASeconds: 60}},
		// ceil(10/8) = 2 waves = 20 s, + 10 s.
		{"unknown quota: capped by the deployment", globalsearch.Quota{}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 50, Max: 8},
			globalsearch.MapSizing{MapConcurrency: 8, ETASeconds: 30}},
		// A call time alone changes the time, not the concurrency:
		// ceil(10/4) = 3 waves of 4 s, + 4 s.
		{"unknown quota: a call time alone", globalsearch.Quota{CallSeconds: 4}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 16}},
		// Reserved 7,000 + 5 x 512 = 9,560 a call; floor(400,000 x 10 /
		// (60 x 9,560)) = floor(6.97) = 6. ceil(10/6) = 2 waves = 20 s, over
		// the tokens' 95,600 / 400,000 x 60 = 14.3 s; + 10 s.
		{"tokens bound, output at 5x", globalsearch.Quota{TokensPerMinute: 400_000}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 6, ETASeconds: 30}},
		// Reserved 7,000 + 512 = 7,512; floor(4,000,000 / 450,720) =
		// floor(8.87) = 8; ceil(10/8) = 2 waves = 20 s, + 10 s.
		{"tokens bound, output at 1x", globalsearch.Quota{TokensPerMinute: 400_000},
			globalsearch.MapLoad{InputTokens: batchesOf(10, 7000), OutputReserve: 512, OutputWeight: 1}, globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 8, ETASeconds: 30}},
		// 344,160 = 60 x 9,560 x 6 / 10: exactly 6 in flight, not 5.
		{"tokens bound on a whole number", globalsearch.Quota{TokensPerMinute: 344_160}, sonnet(batchesOf(12, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 6, ETASeconds: 30}},
		// The mean counts: (1,000 + 3,000) / 2 = 2,000 a call, and
		// floor(12,000 x 10 / (60 x 2,000)) = 1. 2 waves = 20 s, over the
		// tokens' 4,000 / 12,000 x 60 = 20 s; + 10 s.
		{"uneven batches: their mean", globalsearch.Quota{TokensPerMinute: 12_000},
			globalsearch.MapLoad{InputTokens: []int{1000, 3000}, OutputWeight: 1}, globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 1, ETASeconds: 30}},
		// floor(30 x 10 / 60) = 5, the tokens allow floor(1e8 / 573,600) =
		// 174; 2 waves = 20 s, the requests 10 / 30 x 60 = 20 s; + 10 s.
		{"requests bound", globalsearch.Quota{TokensPerMinute: 10_000_000, RequestsPerMinute: 30}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 5, ETASeconds: 30}},
		// floor(48 x 2.5 / 60) = 2; 5 waves of 2.5 s = 12.5 s, the
		// requests 10 / 48 x 60 = 12.5 s; + 2.5 s = 15.
		{"a call time of its own", globalsearch.Quota{RequestsPerMinute: 48, CallSeconds: 2.5}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 2, ETASeconds: 15}},
		// The quota's 6, capped by the request's 3: ceil(10/3) = 4 waves
		// = 40 s, + 10 s.
		{"the request caps the quota's", globalsearch.Quota{TokensPerMinute: 400_000}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Requested: 3, Default: 4},
			globalsearch.MapSizing{MapConcurrency: 3, ETASeconds: 50}},
		// The request's 50 is capped by the quota's 6.
		{"the quota caps the request's", globalsearch.Quota{TokensPerMinute: 400_000}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Requested: 50, Default: 4},
			globalsearch.MapSizing{MapConcurrency: 6, ETASeconds: 30}},
		// The quota's 6, capped by the deployment's 4: 3 waves, + 10 s.
		{"the deployment caps the quota's", globalsearch.Quota{TokensPerMinute: 400_000}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 50, Max: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 40}},
		// floor(10,000 x 10 / (60 x 9,560)) = 0, so 1; 2 waves = 20 s,
		// under the tokens' 19,120 / 10,000 x 60 = 114.72 s; + 10 s =
		// 124.72, so 125.
		{"a quota below one call in flight", globalsearch.Quota{TokensPerMinute: 10_000}, sonnet(batchesOf(2, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 1, ETASeconds: 125}},
		// A Quota built in Go is not checked: a negative limit is not
		// known, a call time out of bounds is the default 10 s.
		{"a negative limit is not known", globalsearch.Quota{TokensPerMinute: -1, RequestsPerMinute: -1}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 40}},
		{"an endless call time is the default", globalsearch.Quota{CallSeconds: math.Inf(1)}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 40}},
		{"a call time that is not a number is the default", globalsearch.Quota{CallSeconds: math.NaN()}, sonnet(batchesOf(10, 7000)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 40}},
		{"no batch: no call", globalsearch.Quota{TokensPerMinute: 400_000}, sonnet(nil), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4}},
		// The 10,000-summary index's plan for Claude Sonnet 4 (docs/cost.md):
		// 1,456 batches of 7,063 tokens on average (10,284,042 in all);
		// 7,063 + 5 x 512 = 9,623 reserved a call. 2,000,000 tokens a
		// minute sustain floor(2e7 / 577,380) = 34, 200 requests
		// floor(33.3) = 33. ceil(1,456 / 33) = 45 waves = 450 s, over the
		// tokens' 14,011,088 / 2e6 x 60 = 420.3 s and the requests' 436.8 s;
		// + 10 s.
		{"the 10,000-summary plan", globalsearch.Quota{TokensPerMinute: 2_000_000, RequestsPerMinute: 200}, sonnet(batchesOf(1456, 7063)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 33, ETASeconds: 460}},
		// Today's fixed 4: ceil(1,456 / 4) = 364 waves = 3,640 s, + 10 s.
		{"the 10,000-summary plan at a fixed 4", globalsearch.Quota{}, sonnet(batchesOf(1456, 7063)), globalsearch.MapCaps{Default: 4},
			globalsearch.MapSizing{MapConcurrency: 4, ETASeconds: 3650}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, globalsearch.SizeMap(tc.quota, tc.load, tc.caps))
		})
	}
}

// TestOutputWeight: Bedrock's burndown rate by model family
// (docs/contract.md#quota), from any form of id the engine is given.
func TestOutputWeight(t *testing.T) {
	for model, want := range map[string]int{
		"anthropic.claude-3-5-haiku-20241022-v1:0":         1,
		"anthropic.claude-3-5-sonnet-20240620-v1:0":        1,
		"anthropic.claude-3-haiku-20240307-v1:0":           1,
		"anthropic.claude-v2:1":                            1,
		"us.anthropic.claude-3-7-sonnet-20250219-v1:0":     5,
		"anthropic.claude-sonnet-4-20250514-v1:0":          5,
		"us.anthropic.claude-opus-4-1-20250805-v1:0":       5,
		"global.anthropic.claude-sonnet-4-5-20250929-v1:0": 5,
		"bedrock:eu.anthropic.claude-opus-4-20250514-v1:0": 5,
		"ANTHROPIC.CLAUDE-SONNET-4-20250514-V1:0":          5,
		"amazon.nova-pro-v1:0":                             1,
		"meta.llama3-70b-instruct-v1:0":                    1,
		"openai:gpt-4o@http://localhost:8080/v1":           1,
		"offline":                                          1,
		"":                                                 1,
	} {
		assert.Equal(t, want, globalsearch.OutputWeight(model), model)
	}
}

func TestQuotaFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		want    globalsearch.Quota
		wantErr string
	}{
		{"nothing set: not known", nil, globalsearch.Quota{}, ""},
		{"empty is unset", map[string]string{globalsearch.EnvModelTokensPerMinute: " ", globalsearch.EnvMapCallSeconds: ""}, globalsearch.Quota{}, ""},
		{"every variable", map[string]string{globalsearch.EnvModelTokensPerMinute: "2000000", globalsearch.EnvModelRequestsPerMinute: "200", globalsearch.EnvMapCallSeconds: "12.5"},
			globalsearch.Quota{TokensPerMinute: 2_000_000, RequestsPerMinute: 200, CallSeconds: 12.5}, ""},
		{"0 is not known", map[string]string{globalsearch.EnvModelTokensPerMinute: "0"}, globalsearch.Quota{}, ""},
		{"negative tokens", map[string]string{globalsearch.EnvModelTokensPerMinute: "-5"}, globalsearch.Quota{},
			`GRAPHRAG_MODEL_TOKENS_PER_MINUTE must be a non-negative integer (0: not known), not "-5"`},
		{"fractional requests", map[string]string{globalsearch.EnvModelRequestsPerMinute: "2.5"}, globalsearch.Quota{},
			`GRAPHRAG_MODEL_REQUESTS_PER_MINUTE must be a non-negative integer (0: not known), not "2.5"`},
		{"past an int32", map[string]string{globalsearch.EnvModelTokensPerMinute: "99999999999"}, globalsearch.Quota{},
			`GRAPHRAG_MODEL_TOKENS_PER_MINUTE must be a non-negative integer (0: not known), not "99999999999"`},
		{"zero call time", map[string]string{globalsearch.EnvMapCallSeconds: "0"}, globalsearch.Quota{},
			`GRAPHRAG_MAP_CALL_SECONDS must be a positive number of seconds up to 3600, not "0"`},
		{"call time past the bound", map[string]string{globalsearch.EnvMapCallSeconds: "3601"}, globalsearch.Quota{},
			`GRAPHRAG_MAP_CALL_SECONDS must be a positive number of seconds up to 3600, not "3601"`},
		{"call time not a number", map[string]string{globalsearch.EnvMapCallSeconds: "NaN"}, globalsearch.Quota{},
			`GRAPHRAG_MAP_CALL_SECONDS must be a positive number of seconds up to 3600, not "NaN"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := globalsearch.QuotaFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, q)
		})
	}
}

// TestMapConcurrencyDefault: a request remembers whether it named its
// mapConcurrency (docs/contract.md#quota), so a quota sizes only the ones
// that did not. Its JSON, the execution input the API passes on, leaves an
// unnamed one out, so that it parses to the same Params; a request that
// names the default asks for the same run as one that names none.
func TestMapConcurrencyDefault(t *testing.T) {
	cases := []struct {
		name        string
		body        string
		wantDefault bool
		wantValue   int
		wantJSON    bool // mapConcurrency in the encoding
	}{
		{"none named", `{"query":"q"}`, true, 4, false},
		{"the default named", `{"query":"q","mapConcurrency":4}`, false, 4, true},
		{"another named", `{"query":"q","mapConcurrency":9}`, false, 9, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := globalsearch.ParseRequest([]byte(tc.body), globalsearch.SpecDefaults)
			require.NoError(t, err)
			assert.Equal(t, tc.wantDefault, p.MapConcurrencyDefault)
			assert.Equal(t, tc.wantValue, p.MapConcurrency)
			raw, err := json.Marshal(p)
			require.NoError(t, err)
			var fields map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &fields))
			assert.Equal(t, tc.wantJSON, fields["mapConcurrency"] != nil, string(raw))
			assert.NotContains(t, fields, "mapConcurrencyDefault")
			again, err := globalsearch.ParseRequest(raw, globalsearch.SpecDefaults)
			require.NoError(t, err)
			p.SeedGenerated = false
			assert.Equal(t, p, again, "the encoding parses to the same request")
		})
	}
	seed := int64(1)
	unnamed, err := globalsearch.Request{Query: "q", ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	assert.True(t, unnamed.MapConcurrencyDefault, "a Go request without one names none")
	four := 4
	named, err := globalsearch.Request{Query: "q", ShuffleSeed: &seed, MapConcurrency: &four}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	named.QueryID = unnamed.QueryID
	assert.False(t, named.MapConcurrencyDefault)
	assert.True(t, named.SameRequest(unnamed), "the same resolved request")
}
