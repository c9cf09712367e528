package globalsearch_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// docs/contract.md#centrality: GraphRAG's rank, else its size, else the
// number of leaves below the community.
func TestCentrality(t *testing.T) {
	tests := []struct {
		name    string
		summary gs.Summary
		leaves  int
		want    float64
	}{
		{"rank wins over size and breadth", gs.Summary{Rank: 8.5, Size: 117}, 30, 8.5},
		{"size when unrated", gs.Summary{Size: 44}, 30, 44},
		{"breadth otherwise", gs.Summary{}, 30, 30},
		{"a leaf is its own one leaf", gs.Summary{}, 1, 1},
		{"never below one leaf", gs.Summary{}, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gs.Centrality(tc.summary, tc.leaves))
		})
	}
}

// Prepare records each community's centrality with its batch, and the map
// call's parts carry it; the prompt text does not change with it.
func TestMapPartsCarryCentrality(t *testing.T) {
	records := gs.Records{Summaries: []gs.Summary{
		{ID: "root", Level: 0, Summary: "Root summary."},
		{ID: "ranked", Level: 1, ParentCommunityID: "root", Summary: "Ranked summary.", Rank: 7.5},
		{ID: "sized", Level: 1, ParentCommunityID: "root", Summary: "Sized summary.", Size: 12},
		{ID: "plain", Level: 1, ParentCommunityID: "root", Summary: "Plain summary."},
		{ID: "mid", Level: 1, ParentCommunityID: "root", Summary: "Mid summary."},
		{ID: "deep-a", Level: 2, ParentCommunityID: "mid", Summary: "Deep summary A."},
		{ID: "deep-b", Level: 2, ParentCommunityID: "mid", Summary: "Deep summary B."},
	}}
	tests := []struct {
		name  string
		level gs.Level
		want  map[string]float64
	}{
		{"level 1", 1, map[string]float64{"ranked": 7.5, "sized": 12, "plain": 1, "mid": 2}},
		{"level 0", 0, map[string]float64{"root": 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(context.Background(), "ns", records))
			var mu sync.Mutex
			seen := map[string]float64{}
			var prompts []string
			model := modelFunc(func(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce {
					return gs.ModelResponse{Text: `{"answer":"A."}`}, nil
				}
				mu.Lock()
				defer mu.Unlock()
				prompts = append(prompts, req.Prompt)
				for _, p := range req.Parts {
					seen[p.CommunityID] = p.Centrality
				}
				return gs.ModelResponse{Text: `{"answer":"A.","usefulness":50}`}, nil
			})
			engine := &gs.Engine{Index: store, Runs: store, Model: model}
			level := tc.level
			noShuffle := false
			p, err := gs.Request{Query: "q", Namespace: "ns", CommunityLevel: &level, Shuffle: &noShuffle}.Params(gs.SpecDefaults)
			require.NoError(t, err)
			plan, err := engine.Plan(context.Background(), p)
			require.NoError(t, err)
			planned := map[string]float64{}
			for _, b := range plan.Batches {
				for id, c := range b.Centrality {
					planned[id] = c
				}
			}
			assert.Equal(t, tc.want, planned, "the plan's batches")

			res, err := engine.Search(context.Background(), p)
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status, res.Error)
			assert.Equal(t, tc.want, seen, "the map calls' parts")
			for _, prompt := range prompts {
				assert.NotContains(t, prompt, "7.5")
			}
		})
	}
}

// The reduce call carries the response type the request asked for, so a
// model that writes its own answer (the offline model) can follow it.
func TestReduceRequestCarriesResponseType(t *testing.T) {
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), "ns", gs.Records{Summaries: []gs.Summary{{ID: "c1", Summary: "Text."}}}))
	tests := []struct{ name, responseType, want string }{
		{"default", "", gs.DefaultResponseType},
		{"asked", "bulleted list", "bulleted list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			model := modelFunc(func(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce {
					got = req.ResponseType
					return gs.ModelResponse{Text: `{"answer":"A."}`}, nil
				}
				return gs.ModelResponse{Text: `{"answer":"A.","usefulness":50}`}, nil
			})
			r := gs.Request{Query: "q", Namespace: "ns", QueryID: "q-" + tc.name}
			if tc.responseType != "" {
				r.ResponseType = &tc.responseType
			}
			p, err := r.Params(gs.SpecDefaults)
			require.NoError(t, err)
			res, err := (&gs.Engine{Index: store, Runs: store, Model: model}).Search(context.Background(), p)
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status, res.Error)
			assert.Equal(t, tc.want, got)
		})
	}
}
