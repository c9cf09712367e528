package localserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// servedPlan is what these tests read of a plans answer.
type servedPlan struct {
	ShuffleSeed    int64                        `json:"shuffleSeed"`
	SeedDerivation *globalsearch.SeedDerivation `json:"seedDerivation"`
	Batches        []struct {
		CommunityIDs []string `json:"communityIds"`
	} `json:"batches"`
}

// planOf is the plan serve answers for query.
func planOf(t *testing.T, route plansRoute, query string) servedPlan {
	t.Helper()
	x := route.post(`{"query":"` + query + `","mapTokenBudget":1500}`)
	require.Equal(t, http.StatusOK, x.status, x.body)
	var p servedPlan
	require.NoError(t, json.Unmarshal([]byte(x.body), &p))
	return p
}

// plansRoute sends to the plans route of the sample namespace.
type plansRoute struct {
	send func(method, path, body string) exchange
}

func (r plansRoute) post(body string) exchange {
	return r.send(http.MethodPost, "/namespaces/sample/plans", body)
}

// serve --seed-policy namespace (docs/contract.md#seed-policy): two
// different questions over one namespace version plan the same batches
// under the derived seed, which the answer names with its derivation; a
// re-indexed namespace plans others, and a search records the seed.
func TestServeSeedPolicyNamespaceSharesBatches(t *testing.T) {
	var idx *memstore.Store
	s, srv := localServer(t, func(c *Config) {
		c.Defaults.SeedPolicy = globalsearch.SeedPolicyNamespace
		idx = c.Engine.Index.(*memstore.Store)
	})
	route := plansRoute{func(method, path, body string) exchange { return overHTTP(t, srv, method, path, body, nil) }}
	// Questions of one length: the packer gets the same room in each batch.
	first, second := planOf(t, route, "What changed in the fisheries?"), planOf(t, route, "Who paid for the new harbours?")
	require.Greater(t, len(first.Batches), 1)
	require.NotNil(t, first.SeedDerivation)
	assert.Equal(t, "sample", first.SeedDerivation.Namespace)
	assert.NotZero(t, first.ShuffleSeed)
	assert.Equal(t, first.ShuffleSeed, second.ShuffleSeed)
	assert.Equal(t, first.Batches, second.Batches, "the same batches for both questions")

	x := direct(t, s, http.MethodPost, "/namespaces/sample/queries", `{"query":"What changed in the fisheries?","mapTokenBudget":1500,"queryId":"seeded"}`, nil)
	require.Less(t, x.status, 300, x.body)
	<-s.starter.Done("seeded")
	var res globalsearch.Result
	got := direct(t, s, http.MethodGet, "/namespaces/sample/queries/seeded", "", nil)
	require.NoError(t, json.Unmarshal([]byte(got.body), &res), got.body)
	assert.Equal(t, first.ShuffleSeed, res.Diagnostics.ShuffleSeed)
	assert.Equal(t, globalsearch.SeedPolicyNamespace, res.Diagnostics.SeedPolicy)
	assert.Equal(t, first.SeedDerivation, res.Diagnostics.SeedDerivation)

	f := sampleFile(t)
	require.NoError(t, idx.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	reindexed := planOf(t, route, "What changed in the fisheries?")
	assert.NotEqual(t, first.ShuffleSeed, reindexed.ShuffleSeed)
	assert.NotEqual(t, first.Batches, reindexed.Batches, "a re-index reshuffles")

	// A request may still ask for a fresh shuffle.
	fresh := route.post(`{"query":"What changed in the fisheries?","mapTokenBudget":1500,"seedPolicy":"question"}`)
	require.Equal(t, http.StatusOK, fresh.status, fresh.body)
	assert.NotContains(t, fresh.body, "seedDerivation")
}
