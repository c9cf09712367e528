package globalsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// callSettingFields are the request fields of docs/contract.md#prompt-cache,
// #service-tiers and #seed-policy: their values, where Params and Defaults
// hold them, and the variable that sets the default.
var callSettingFields = []struct {
	field, env string
	values     []string
	param      func(gs.Params) string
	def        func(gs.Defaults) string
}{
	{"promptCache", "GRAPHRAG_PROMPT_CACHE", []string{"off", "5m", "1h"},
		func(p gs.Params) string { return p.PromptCache }, func(d gs.Defaults) string { return d.PromptCache }},
	{"mapServiceTier", "GRAPHRAG_MAP_SERVICE_TIER", []string{"default", "priority", "flex", "reserved"},
		func(p gs.Params) string { return p.MapServiceTier }, func(d gs.Defaults) string { return d.MapServiceTier }},
	{"reduceServiceTier", "GRAPHRAG_REDUCE_SERVICE_TIER", []string{"default", "priority", "flex", "reserved"},
		func(p gs.Params) string { return p.ReduceServiceTier }, func(d gs.Defaults) string { return d.ReduceServiceTier }},
	{"seedPolicy", "GRAPHRAG_SEED_POLICY", []string{"question", "namespace"},
		func(p gs.Params) string { return p.SeedPolicy }, func(d gs.Defaults) string { return d.SeedPolicy }},
}

// Each field takes exactly its values; anything else is invalid input
// whose message names them all, from the parse alone (no read, write or
// call: ParseRequest has no store or model to reach).
func TestCallSettingFieldsParse(t *testing.T) {
	for _, f := range callSettingFields {
		t.Run(f.field, func(t *testing.T) {
			p, err := gs.ParseRequest([]byte(`{"query":"q"}`), gs.SpecDefaults)
			require.NoError(t, err)
			assert.Empty(t, f.param(p), "none by default")
			for _, v := range f.values {
				p, err := gs.ParseRequest(fmt.Appendf(nil, `{"query":"q",%q:%q}`, f.field, v), gs.SpecDefaults)
				require.NoError(t, err, v)
				assert.Equal(t, v, f.param(p))
			}
			for _, bad := range []string{`"10m"`, `""`, `"FLEX"`, `1`, `null`, `["off"]`} {
				_, err := gs.ParseRequest(fmt.Appendf(nil, `{"query":"q",%q:%s}`, f.field, bad), gs.SpecDefaults)
				require.Error(t, err, bad)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err), bad)
				assert.EqualError(t, err, fmt.Sprintf("%s must be one of %s", f.field, join(f.values)), bad)
			}
		})
	}
}

func join(values []string) string {
	s := ""
	for i, v := range values {
		if i > 0 {
			s += ", "
		}
		s += v
	}
	return s
}

// Each field's GRAPHRAG_* variable is its deployment default, read by the
// field's rule (a bad one fails at start naming the variable and the
// values); a request's own value wins over it.
func TestCallSettingEnvDefaults(t *testing.T) {
	for _, f := range callSettingFields {
		t.Run(f.field, func(t *testing.T) {
			assert.Equal(t, f.env, gs.DefaultVariable(f.field))
			want := f.values[len(f.values)-1]
			d, err := gs.DefaultsFromEnv(func(k string) (string, bool) { return want, k == f.env })
			require.NoError(t, err)
			assert.Equal(t, want, f.def(d))
			p, err := gs.ParseRequest([]byte(`{"query":"q"}`), d)
			require.NoError(t, err)
			assert.Equal(t, want, f.param(p), "the deployment's default")
			p, err = gs.ParseRequest(fmt.Appendf(nil, `{"query":"q",%q:%q}`, f.field, f.values[0]), d)
			require.NoError(t, err)
			assert.Equal(t, f.values[0], f.param(p), "the request wins")

			_, err = gs.DefaultsFromEnv(func(k string) (string, bool) { return "sometimes", k == f.env })
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.EqualError(t, err, fmt.Sprintf("%s: %s must be one of %s", f.env, f.field, join(f.values)))
		})
	}
}

// settingsModel answers as answerEverything does, keeps every request,
// and takes service tiers when tiers is set.
type settingsModel struct {
	mu    sync.Mutex
	reqs  []gs.ModelRequest
	tiers bool
}

func (m *settingsModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if req.Stage == gs.StageRate {
		return text(`{"ratings":[{"id":"c0","score":5},{"id":"c1","score":5},{"id":"c2","score":5}]}`)
	}
	return answerEverything(req, 0)
}

func (m *settingsModel) TakesServiceTier() bool { return m.tiers }

// docs/contract.md#prompt-cache, #service-tiers: every model call of a run
// carries the run's prompt cache and its stage's tier (rating at the
// map's), and the diagnostics name the tiers a tier-taking model was
// sent, or say a model without tiers or cache points ignored them.
func TestCallSettingsReachEveryCall(t *testing.T) {
	for _, selection := range []string{"level", gs.SelectionDynamic} {
		for _, tiers := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/tiers %v", selection, tiers), func(t *testing.T) {
				model := &settingsModel{tiers: tiers}
				// Wrapped as every opened model is (provider.Open).
				e, _ := newEngine(t, leafNamespace(3), gs.TimeoutModel{Model: model, Name: "m"})
				cache, mapTier, reduceTier := "1h", "flex", "priority"
				p, err := gs.Request{Query: "What grew?", PromptCache: &cache, MapServiceTier: &mapTier, ReduceServiceTier: &reduceTier, Selection: &selection}.Params(gs.SpecDefaults)
				require.NoError(t, err)
				res, err := e.Search(context.Background(), p)
				require.NoError(t, err)
				stages := map[gs.Stage]int{}
				for _, req := range model.reqs {
					stages[req.Stage]++
					assert.Equal(t, cache, req.PromptCache, req.Stage)
					want := mapTier
					if req.Stage == gs.StageReduce {
						want = reduceTier
					}
					assert.Equal(t, want, req.ServiceTier, req.Stage)
				}
				assert.Positive(t, stages[gs.StageMap])
				assert.Equal(t, 1, stages[gs.StageReduce])
				if selection == gs.SelectionDynamic {
					assert.Positive(t, stages[gs.StageRate], "rating calls ran")
				}
				d := res.Diagnostics
				assert.Contains(t, d.Map.PromptCacheNote, "promptCache 1h is ignored", "no cache point in this model")
				assert.Contains(t, d.Reduce.PromptCacheNote, "promptCache 1h is ignored")
				if tiers {
					assert.Equal(t, mapTier, d.Map.ServiceTier)
					assert.Equal(t, reduceTier, d.Reduce.ServiceTier)
					assert.Empty(t, d.Map.ServiceTierNote+d.Reduce.ServiceTierNote)
					return
				}
				assert.Empty(t, d.Map.ServiceTier+d.Reduce.ServiceTier)
				assert.Equal(t, "the map model has no service tiers (only Bedrock models do): mapServiceTier flex is ignored", d.Map.ServiceTierNote)
				assert.Equal(t, "the reduce model has no service tiers (only Bedrock models do): reduceServiceTier priority is ignored", d.Reduce.ServiceTierNote)
			})
		}
	}
}

// A run that names no settings sends none and notes nothing.
func TestNoCallSettingsNoNotes(t *testing.T) {
	model := &settingsModel{}
	e, _ := newEngine(t, leafNamespace(2), model)
	p, err := gs.Request{Query: "What grew?"}.Params(gs.SpecDefaults)
	require.NoError(t, err)
	res, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	require.NotEmpty(t, model.reqs)
	for _, req := range model.reqs {
		assert.Empty(t, req.PromptCache+req.ServiceTier)
	}
	d := res.Diagnostics
	assert.Empty(t, d.Map.PromptCacheNote+d.Map.ServiceTierNote+d.Reduce.PromptCacheNote+d.Reduce.ServiceTierNote)
	data, err := json.Marshal(d.Map)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "serviceTier", "a default result prints as before")
}
