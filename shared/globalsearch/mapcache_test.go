package globalsearch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
)

// faultyCache wraps a cache; getErr and putErr, when set, replace its
// answers. It counts reads and writes.
type faultyCache struct {
	gs.MapCache
	getErr, putErr error
	gets, puts     atomic.Int32
}

func (c *faultyCache) CachedMapAnswer(ctx context.Context, key string) (gs.CachedAnswer, bool, error) {
	c.gets.Add(1)
	if c.getErr != nil {
		return gs.CachedAnswer{}, false, c.getErr
	}
	return c.MapCache.CachedMapAnswer(ctx, key)
}

func (c *faultyCache) CacheMapAnswer(ctx context.Context, key string, a gs.CachedAnswer) error {
	c.puts.Add(1)
	if c.putErr != nil {
		return c.putErr
	}
	return c.MapCache.CacheMapAnswer(ctx, key, a)
}

func TestMapCache(t *testing.T) {
	const batches = 3
	seed := int64(7)
	params := func(t *testing.T, mutate func(*gs.Request)) gs.Params {
		return oneBatchPerSummary(t, "What grew?", func(r *gs.Request) {
			r.Shuffle, r.ShuffleSeed = nil, &seed
			if mutate != nil {
				mutate(r)
			}
		})
	}
	noCache := func(r *gs.Request) { off := false; r.Cache = &off }
	otherReserve := func(r *gs.Request) {
		reserve := 10
		b := *r.MapTokenBudget + 10
		r.MapOutputReserve, r.MapTokenBudget = &reserve, &b
	}
	tests := []struct {
		name string
		// second changes the second run: its engine, cache or request.
		second       func(t *testing.T, e *gs.Engine, c *faultyCache) gs.Params
		wantMapCalls int
		wantHits     int
	}{
		{"same model, prompt and reserve: no map call", func(t *testing.T, _ *gs.Engine, _ *faultyCache) gs.Params { return params(t, nil) }, 0, batches},
		{"cache false bypasses it", func(t *testing.T, _ *gs.Engine, _ *faultyCache) gs.Params { return params(t, noCache) }, batches, 0},
		{"another model misses", func(t *testing.T, e *gs.Engine, _ *faultyCache) gs.Params { e.ModelID = "other"; return params(t, nil) }, batches, 0},
		{"another reserve misses", func(t *testing.T, _ *gs.Engine, _ *faultyCache) gs.Params { return params(t, otherReserve) }, batches, 0},
		{"another query misses", func(t *testing.T, _ *gs.Engine, _ *faultyCache) gs.Params {
			return oneBatchPerSummary(t, "What fell?", func(r *gs.Request) { r.Shuffle, r.ShuffleSeed = nil, &seed })
		}, batches, 0},
		{"another map prompt misses", func(t *testing.T, e *gs.Engine, _ *faultyCache) gs.Params {
			// Three tokens more, so the batches stay as they were.
			text, err := os.ReadFile(filepath.Join("prompts", "map.txt"))
			require.NoError(t, err)
			e.Prompts.Map, err = gs.ParseTemplate("Be brief.\n" + string(text))
			require.NoError(t, err)
			return params(t, nil)
		}, batches, 0},
		{"another system prompt misses", func(t *testing.T, e *gs.Engine, _ *faultyCache) gs.Params {
			e.Prompts.System = customSystem
			return params(t, nil)
		}, batches, 0},
		{"the project's own prompts spelt out hit", func(t *testing.T, e *gs.Engine, _ *faultyCache) gs.Params {
			e.Prompts = gs.DefaultPrompts()
			return params(t, nil)
		}, 0, batches},
		{"a cache that fails to read costs calls, not the run", func(t *testing.T, _ *gs.Engine, c *faultyCache) gs.Params {
			c.getErr = errors.New("disk gone")
			return params(t, nil)
		}, batches, 0},
		{"a damaged entry is not reused", func(t *testing.T, e *gs.Engine, c *faultyCache) gs.Params {
			c.MapCache = breakingCache{c.MapCache}
			return params(t, nil)
		}, batches, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: answerEverything}
			e, _ := newEngine(t, distinctLeaves(batches), model)
			cache := &faultyCache{MapCache: dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil)}
			e.Cache, e.ModelID = cache, "model-a"

			first, err := e.Search(t.Context(), params(t, nil))
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, first.Status)
			require.Equal(t, batches, model.count(gs.StageMap))
			require.Zero(t, first.Diagnostics.Map.CacheHits)

			p := tc.second(t, e, cache)
			getsBefore, putsBefore := cache.gets.Load(), cache.puts.Load()
			second, err := e.Search(t.Context(), p)
			require.NoError(t, err)
			assert.Equal(t, gs.StatusCompleted, second.Status)
			assert.Equal(t, tc.wantMapCalls, model.count(gs.StageMap)-batches, "map model calls of the second run")
			assert.Equal(t, tc.wantMapCalls, second.Diagnostics.Map.ModelCalls)
			assert.Equal(t, tc.wantHits, second.Diagnostics.Map.CacheHits)
			assert.Equal(t, tc.wantMapCalls+1, second.Diagnostics.ModelCalls, "modelCalls counts real calls only")
			assert.Equal(t, first.Answer, second.Answer)
			if !p.Cache {
				assert.Equal(t, getsBefore, cache.gets.Load(), "no cache read")
				assert.Equal(t, putsBefore, cache.puts.Load(), "no cache write")
			}
		})
	}
}

// breakingCache serves every entry with a usefulness out of range.
type breakingCache struct{ gs.MapCache }

func (c breakingCache) CachedMapAnswer(ctx context.Context, key string) (gs.CachedAnswer, bool, error) {
	a, ok, err := c.MapCache.CachedMapAnswer(ctx, key)
	a.Usefulness = 150
	return a, ok, err
}

func TestMapCacheWriteFailureKeepsTheAnswer(t *testing.T) {
	model := &fakeModel{complete: answerEverything}
	e, _ := newEngine(t, distinctLeaves(2), model)
	e.Cache = &faultyCache{MapCache: dircache.New(t.TempDir(), 0, nil), putErr: errors.New("disk full")}
	e.ModelID = "m"
	res, err := e.Search(t.Context(), oneBatchPerSummary(t, "What grew?", nil))
	require.NoError(t, err)
	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Equal(t, 2, res.Diagnostics.Map.ModelCalls)
}

func TestMapCacheKeySeparatesItsParts(t *testing.T) {
	type call struct {
		model, prompt string
		reserve       int
	}
	base := call{"m", "prompt", 512}
	sys := gs.SystemPrompt
	tests := []struct {
		name string
		a, b call
		// straddles says a's and b's fields, joined with the system
		// prompt between model and prompt, are the same bytes: only the
		// length prefixes keep them apart.
		straddles bool
	}{
		{"model", base, call{"m2", "prompt", 512}, false},
		{"prompt", base, call{"m", "prompt ", 512}, false},
		{"reserve", base, call{"m", "prompt", 0}, false},
		{"border between model and system prompt", call{"m" + sys, "prompt", 512}, call{"m", sys + "prompt", 512}, true},
		{"border with empty fields", call{"", sys + "p", 512}, call{sys, "p", 512}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.straddles {
				require.Equal(t, tc.a.model+sys+tc.a.prompt, tc.b.model+sys+tc.b.prompt)
			}
			a := gs.MapCacheKey(tc.a.model, tc.a.prompt, tc.a.reserve)
			b := gs.MapCacheKey(tc.b.model, tc.b.prompt, tc.b.reserve)
			assert.Regexp(t, `^[0-9a-f]{64}$`, a)
			assert.NoError(t, gs.CheckMapCacheKey(a))
			assert.NotEqual(t, a, b)
		})
	}
}

// TestMapCacheKeyCoversTheSystemPrompt: the system prompt is sent with
// every map call, so answers written under another one must miss. No test
// of this package runs in parallel, so changing it here is seen by no
// other test.
func TestMapCacheKeyCoversTheSystemPrompt(t *testing.T) {
	before := gs.MapCacheKey("m", "prompt", 512)
	saved := gs.SystemPrompt
	t.Cleanup(func() { gs.SystemPrompt = saved })
	gs.SystemPrompt = saved + " Answer in French."
	assert.NotEqual(t, before, gs.MapCacheKey("m", "prompt", 512))
	gs.SystemPrompt = saved
	assert.Equal(t, before, gs.MapCacheKey("m", "prompt", 512), "the key depends on nothing else")
}

func TestCheckMapCacheKey(t *testing.T) {
	good := gs.MapCacheKey("m", "p", 1)
	for _, key := range []string{"", "k", good[:63], good + "0", strings.ToUpper(good), "../../" + good[6:]} {
		err := gs.CheckMapCacheKey(key)
		assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err), "%q", key)
		assert.ErrorContains(t, err, "is not a SHA-256 in hex", "%q", key)
	}
	long := gs.CheckMapCacheKey(strings.Repeat("x", 100_000))
	assert.Less(t, len(long.Error()), 200, "the key is echoed capped")
}

// distinctLeaves is leafNamespace with a text of its own for each summary:
// the cache keys texts, not ids (docs/contract.md#map-cache), so leaves of
// one text would share their answers.
func distinctLeaves(n int) gs.Records {
	r := leafNamespace(n)
	for i := range r.Summaries {
		r.Summaries[i].Summary = fmt.Sprintf("Region %d. %s", i, r.Summaries[i].Summary)
	}
	return r
}
