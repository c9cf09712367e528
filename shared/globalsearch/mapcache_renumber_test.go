package globalsearch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
)

// prompt is a map prompt of parts, each an id, a part number and a text,
// as a batch writes them.
func prompt(parts ...string) string {
	var b strings.Builder
	b.WriteString("Question: what grew?\n")
	for i := 0; i+2 < len(parts); i += 3 {
		var part int
		fmt.Sscan(parts[i+1], &part)
		b.WriteString(batch.Header(parts[i], part) + "\n" + parts[i+2] + "\n")
	}
	return b.String()
}

// TestMapCacheKeyIgnoresHeaderIDs: the key reads each part header's id as
// its position among the prompt's headers (docs/contract.md#map-cache), so
// a renumbered index keys unchanged batches as before, and nothing else
// about a prompt is read loosely.
func TestMapCacheKeyIgnoresHeaderIDs(t *testing.T) {
	base := prompt("c1", "1", "Fish rose.", "c2", "1", "Prices fell.")
	tests := []struct {
		name  string
		other string
		same  bool
	}{
		{"the same texts under other ids", prompt("x9", "1", "Fish rose.", "a0", "1", "Prices fell."), true},
		{"the ids swapped between the texts", prompt("c2", "1", "Fish rose.", "c1", "1", "Prices fell."), true},
		{"the texts swapped", prompt("c1", "1", "Prices fell.", "c2", "1", "Fish rose."), false},
		{"two parts of one community", prompt("c1", "1", "Fish rose.", "c1", "2", "Prices fell."), false},
		{"another part number", prompt("c1", "1", "Fish rose.", "c2", "2", "Prices fell."), false},
		{"a text changed", prompt("c1", "1", "Fish rose.", "c2", "1", "Prices rose."), false},
		{"a header written otherwise is text", strings.Replace(base, "[Community ID: c1", " [Community ID: x9", 1), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := gs.MapCacheKey("m", base, 512), gs.MapCacheKey("m", tc.other, 512)
			require.NoError(t, gs.CheckMapCacheKey(b))
			if tc.same {
				assert.Equal(t, a, b)
			} else {
				assert.NotEqual(t, a, b)
			}
		})
	}
}

// citingModel cites every community of the batch it maps, in the order of
// its parts, and one id no batch holds.
func citingModel(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return text(`{"answer":"Synthesised answer"}`)
	}
	var ids []string
	for _, p := range req.Parts {
		ids = append(ids, p.CommunityID)
	}
	return text(fmt.Sprintf(`{"answer":"Output grew %s and fell [Data: Communities (%s)].","usefulness":60}`,
		gs.CitationMark(append(ids, "ghost")), ids[len(ids)-1]))
}

// renamed is r with every community id replaced as ids says.
func renamed(r gs.Records, ids map[string]string) gs.Records {
	out := gs.Records{Claims: r.Claims, Chunks: r.Chunks}
	for _, s := range r.Summaries {
		s.ID = ids[s.ID]
		out.Summaries = append(out.Summaries, s)
	}
	return out
}

// TestMapCacheSurvivesRenumbering: a re-built index that gives the same
// texts other ids reuses every map answer, and each reused answer cites
// the communities of its new batch, position by position, dropping the
// ids its batch never held as the model call's answer did
// (docs/contract.md#map-cache).
func TestMapCacheSurvivesRenumbering(t *testing.T) {
	ctx := context.Background()
	before := distinctLeaves(4)
	ids := map[string]string{"c0": "z9", "c1": "a1", "c2": "m4", "c3": "b2"}
	model := &fakeModel{complete: citingModel}
	e, s := newEngine(t, before, model)
	require.NoError(t, s.ReplaceNamespace(ctx, "renumbered", renamed(before, ids)))
	e.Cache, e.ModelID = dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil), "m"
	params := func(ns string) gs.Params {
		stable, seed := gs.BatchingStable, int64(3)
		req := gs.Request{Query: "What grew?", Namespace: ns, Batching: &stable, ShuffleSeed: &seed}
		p, err := req.Params(gs.SpecDefaults)
		require.NoError(t, err)
		return p
	}
	first, err := e.Search(ctx, params("default"))
	require.NoError(t, err)
	second, err := e.Search(ctx, params("renumbered"))
	require.NoError(t, err)

	require.Equal(t, gs.StatusCompleted, second.Status)
	assert.Equal(t, 1, model.calls[gs.StageMap], "the second run makes no map call")
	assert.Equal(t, 1, second.Diagnostics.Map.CacheHits)
	require.Len(t, first.SelectedMapAnswers, 1)
	require.Len(t, second.SelectedMapAnswers, 1)
	was, now := first.SelectedMapAnswers[0], second.SelectedMapAnswers[0]
	require.Len(t, now.CommunityIDs, 4)
	for i, id := range was.CommunityIDs {
		assert.Equal(t, ids[id], now.CommunityIDs[i], "the batch holds the same texts in the same places")
	}
	assert.Equal(t, now.CommunityIDs, now.CitedCommunityIDs, "the reused answer cites its own batch")
	assert.Equal(t, strings.NewReplacer("c0", "z9", "c1", "a1", "c2", "m4", "c3", "b2").Replace(was.Answer), now.Answer)
	assert.NotContains(t, now.Answer, "ghost")
	assert.Equal(t, first.Diagnostics.Map.DroppedCitations, second.Diagnostics.Map.DroppedCitations)
	assert.Equal(t, 1, second.Diagnostics.Map.DroppedCitations, "the invented id, dropped as the model call's answer was")
}

// damagedIDsCache serves every entry with one community id fewer than it
// was written with.
type damagedIDsCache struct{ gs.MapCache }

func (c damagedIDsCache) CachedMapAnswer(ctx context.Context, key string) (gs.CachedAnswer, bool, error) {
	a, ok, err := c.MapCache.CachedMapAnswer(ctx, key)
	if len(a.CommunityIDs) > 0 {
		a.CommunityIDs = a.CommunityIDs[1:]
	}
	return a, ok, err
}

// TestMapCacheEntryOfOtherIDsMisses: an entry that names another number of
// communities than the prompt it would answer cannot be renumbered, so it
// is a logged miss and the model is called.
func TestMapCacheEntryOfOtherIDsMisses(t *testing.T) {
	ctx := context.Background()
	model := &fakeModel{complete: citingModel}
	e, _ := newEngine(t, distinctLeaves(3), model)
	e.Cache, e.ModelID = dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil), "m"
	p := oneBatchPerSummary(t, "What grew?", nil)
	_, err := e.Search(ctx, p)
	require.NoError(t, err)
	e.Cache = damagedIDsCache{e.Cache}
	res, err := e.Search(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Zero(t, res.Diagnostics.Map.CacheHits)
	assert.Equal(t, 6, model.calls[gs.StageMap], "every batch called again")
}
