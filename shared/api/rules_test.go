package api_test

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// TestPostNumberAndTextRules: the API reads a request by the rules an index
// file is read by (docs/contract.md#strict-json): an integer is written in
// digits (1e2 and 1.0 are 400, -0 is 0), and text that is not UTF-8 is 400,
// whether as raw bytes (a base64 body, the only way API Gateway passes
// them) or as an escaped half of a surrogate pair. Nothing starts for one.
func TestPostNumberAndTextRules(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name, body string
		base64     bool
		wantStatus int
		wantMsg    string
	}{
		{name: "level 1e2", body: `{"query":"q","communityLevel":1e2}`, wantStatus: 400, wantMsg: `communityLevel must be "leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`},
		{name: "level 1.0", body: `{"query":"q","communityLevel":1.0}`, wantStatus: 400, wantMsg: `communityLevel must be "leaf", "auto", a non-negative integer N or "graphrag:N" (GraphRAG's community level N)`},
		{name: "level -0", body: `{"query":"q","communityLevel":-0}`, wantStatus: 202},
		{name: "mapConcurrency 1e2", body: `{"query":"q","mapConcurrency":1e2}`, wantStatus: 400, wantMsg: "mapConcurrency must be a positive integer"},
		{name: "query with an invalid byte", body: b64("{\"query\":\"themes \xff\"}"), base64: true, wantStatus: 400,
			wantMsg: "request: " + strictjson.NotUTF8 + " in query"},
		{name: "query with a lone surrogate", body: `{"query":"themes \ud800"}`, wantStatus: 400,
			wantMsg: "request: " + strictjson.NotUTF8 + " in query"},
		{name: "query with a surrogate pair", body: `{"query":"themes \ud83d\ude00"}`, wantStatus: 202},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _, st := newHandler()
			req := request("POST", "/namespaces/default/queries", tc.body, nil)
			req.IsBase64Encoded = tc.base64
			resp := call(t, h, req)
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			b := body(t, resp)
			if tc.wantStatus == 202 {
				assert.Equal(t, "running", b["status"])
				return
			}
			assert.Equal(t, "invalid_input", b["error"])
			assert.Contains(t, b["message"], tc.wantMsg)
			assert.Zero(t, st.calls, "nothing may start for a bad request")
		})
	}
}
