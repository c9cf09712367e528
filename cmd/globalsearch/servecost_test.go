package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
)

// serve's API holds a request's maxCostUsd to the prices the flags give,
// as the deployed API does to the deployment's (docs/contract.md#cost-ceiling):
// without prices the POST is 400 and nothing starts.
func TestServeHoldsMaxCostUsdToThePricesGiven(t *testing.T) {
	cases := []struct {
		name       string
		flags      []string
		wantStatus int
		wantBody   string
	}{
		{"prices given", []string{"--price-in", "3", "--price-out", "15"}, http.StatusAccepted, `"status":"running"`},
		{"no prices", nil, http.StatusBadRequest, `maxCostUsd 100 needs the models' prices, and none are set`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := localServer(t, tc.flags...)
			key := map[string]string{api.IdempotencyKeyHeader: "q-serve-cost"}
			got := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What changed?","maxCostUsd":100}`, key)
			require.Equal(t, tc.wantStatus, got.status, got.body)
			assert.Contains(t, got.body, tc.wantBody)
		})
	}
}
