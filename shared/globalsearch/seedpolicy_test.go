package globalsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// docs/contract.md#seed-policy: what the parse makes of a request under
// each policy, and that its JSON (the execution input, the runs table's
// copy) parses back to the same Params.
func TestSeedPolicyParse(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		wantPolicy    string
		wantSeed      int64 // -1: a random one
		wantGenerated bool
	}{
		{"question draws a seed", `{"query":"q","seedPolicy":"question"}`, "question", -1, true},
		{"namespace leaves it to prepare", `{"query":"q","seedPolicy":"namespace"}`, "namespace", 0, true},
		{"a seed named wins", `{"query":"q","seedPolicy":"namespace","shuffleSeed":5}`, "namespace", 5, false},
		{"a seed of 0 named turns the policy to question", `{"query":"q","seedPolicy":"namespace","shuffleSeed":0}`, "question", 0, false},
		{"stable batching draws none", `{"query":"q","seedPolicy":"namespace","batching":"stable"}`, "namespace", 0, false},
		{"no shuffle draws none", `{"query":"q","seedPolicy":"namespace","shuffle":false}`, "namespace", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gs.ParseRequest([]byte(tc.body), gs.SpecDefaults)
			require.NoError(t, err)
			assert.Equal(t, tc.wantPolicy, p.SeedPolicy)
			assert.Equal(t, tc.wantGenerated, p.SeedGenerated)
			if tc.wantSeed >= 0 {
				assert.Equal(t, tc.wantSeed, p.ShuffleSeed)
			}
			data, err := json.Marshal(p)
			require.NoError(t, err)
			again, err := gs.ParseRequest(data, gs.SpecDefaults)
			require.NoError(t, err)
			assert.True(t, again.SameRequest(p), "%s parses back to the same request", data)
			assert.Equal(t, p.SeedPolicy, again.SeedPolicy)
			if !p.SeedGenerated || p.SeedPolicy == gs.SeedPolicyNamespace {
				assert.Equal(t, p.ShuffleSeed, again.ShuffleSeed)
			}
		})
	}
}

func namespaceSeedParams(t *testing.T, query string) gs.Params {
	t.Helper()
	policy := gs.SeedPolicyNamespace
	p, err := gs.Request{Query: query, SeedPolicy: &policy}.Params(gs.SpecDefaults)
	require.NoError(t, err)
	return p
}

func batchIDs(plan gs.Plan) [][]string {
	ids := make([][]string, len(plan.Batches))
	for i, b := range plan.Batches {
		ids[i] = b.CommunityIDs
	}
	return ids
}

// Two questions over one namespace version pack the same batches with the
// derived seed, a re-index reshuffles, and the seed named as a request's
// packs the same batches again: the derivation is reproducible.
func TestNamespaceSeedSharesBatches(t *testing.T) {
	ctx := context.Background()
	records := leafNamespace(40)
	e, s := newEngine(t, records, &settingsModel{})
	// Questions of one length leave the packer the same room (the query
	// is in the skeleton each batch is fitted to): about three summaries.
	small := tokens.Estimate(gs.DefaultPrompts().Map.Skeleton("What grew there?")) + 350
	first, err := e.Plan(ctx, withBudget(namespaceSeedParams(t, "What grew there?"), small))
	require.NoError(t, err)
	second, err := e.Plan(ctx, withBudget(namespaceSeedParams(t, "Who fished here?"), small))
	require.NoError(t, err)
	require.Greater(t, len(first.Batches), 2)
	require.NotNil(t, first.SeedDerivation)
	assert.NotZero(t, first.Params.ShuffleSeed)
	assert.Equal(t, first.Params.ShuffleSeed, second.Params.ShuffleSeed)
	assert.Equal(t, *first.SeedDerivation, *second.SeedDerivation)
	assert.Equal(t, "default", first.SeedDerivation.Namespace)
	assert.Equal(t, batchIDs(first), batchIDs(second), "the same batches for both questions")

	report := e.Report(first)
	assert.Equal(t, first.SeedDerivation, report.SeedDerivation)

	replay := withBudget(first.Params, small)
	replay.SeedPolicy = gs.SeedPolicyQuestion
	again, err := e.Plan(ctx, replay)
	require.NoError(t, err)
	assert.Nil(t, again.SeedDerivation, "a seed the request names is the request's")
	assert.Equal(t, batchIDs(first), batchIDs(again), "run --seed N packs the derived batches")

	// The same records again are a new version: a re-index reshuffles.
	require.NoError(t, s.ReplaceNamespace(ctx, "default", records))
	reindexed, err := e.Plan(ctx, withBudget(namespaceSeedParams(t, "What grew there?"), small))
	require.NoError(t, err)
	assert.NotEqual(t, first.SeedDerivation.IndexVersion, reindexed.SeedDerivation.IndexVersion)
	assert.NotEqual(t, first.Params.ShuffleSeed, reindexed.Params.ShuffleSeed)
	assert.NotEqual(t, batchIDs(first), batchIDs(reindexed))
}

// An index of other summaries under the same version number (a fresh
// process's embedded store counts from 1) gets another seed.
func TestNamespaceSeedFollowsTheSummaries(t *testing.T) {
	ctx := context.Background()
	a, _ := newEngine(t, leafNamespace(5), &settingsModel{})
	changed := leafNamespace(5)
	changed.Summaries[3].Summary = "Ports expanded."
	b, _ := newEngine(t, changed, &settingsModel{})
	pa, err := a.Plan(ctx, namespaceSeedParams(t, "q"))
	require.NoError(t, err)
	pb, err := b.Plan(ctx, namespaceSeedParams(t, "q"))
	require.NoError(t, err)
	assert.Equal(t, pa.SeedDerivation.IndexVersion, pb.SeedDerivation.IndexVersion)
	assert.NotEqual(t, pa.SeedDerivation.SummariesDigest, pb.SeedDerivation.SummariesDigest)
	assert.NotEqual(t, pa.Params.ShuffleSeed, pb.Params.ShuffleSeed)
}

// A search under the policy records the derived seed, the policy and the
// derivation in its result; the same query id again replays that seed
// even after a re-index, as a drawn seed is replayed.
func TestNamespaceSeedInTheResult(t *testing.T) {
	ctx := context.Background()
	records := leafNamespace(6)
	e, s := newEngine(t, records, &settingsModel{})
	p := namespaceSeedParams(t, "What grew?")
	res, err := e.Search(ctx, p)
	require.NoError(t, err)
	d := res.Diagnostics
	assert.Equal(t, gs.SeedPolicyNamespace, d.SeedPolicy)
	require.NotNil(t, d.SeedDerivation)
	plan, err := e.Plan(ctx, namespaceSeedParams(t, "another question"))
	require.NoError(t, err)
	assert.Equal(t, plan.Params.ShuffleSeed, d.ShuffleSeed)

	require.NoError(t, s.ReplaceNamespace(ctx, "default", records))
	again, err := e.Search(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, d.ShuffleSeed, again.Diagnostics.ShuffleSeed, "the query id's request replays its seed")

	plain, err := e.Search(ctx, oneBatchPerSummary(t, "q", nil))
	require.NoError(t, err)
	assert.Empty(t, plain.Diagnostics.SeedPolicy)
	assert.Nil(t, plain.Diagnostics.SeedDerivation)
}

func withBudget(p gs.Params, budget int) gs.Params {
	req := gs.Request{Query: p.Query, MapTokenBudget: &budget, SeedPolicy: &p.SeedPolicy}
	if !p.SeedGenerated {
		req.ShuffleSeed = &p.ShuffleSeed
	}
	reserve := 0
	req.MapOutputReserve = &reserve
	out, err := req.Params(gs.SpecDefaults)
	if err != nil {
		panic(fmt.Sprintf("budget %d: %v", budget, err))
	}
	return out
}
