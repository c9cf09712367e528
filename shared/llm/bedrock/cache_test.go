package bedrock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

func TestEffectiveCache(t *testing.T) {
	tests := []struct {
		model, want, got string
		note             bool
	}{
		{sonnet4, "", bedrock.CacheFiveMinute, false},
		{sonnet4, bedrock.CacheOneHour, bedrock.CacheFiveMinute, true},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", bedrock.CacheOneHour, bedrock.CacheOneHour, false},
		{haiku, bedrock.CacheFiveMinute, bedrock.CacheFiveMinute, false},
		{"meta.llama3-70b-instruct-v1:0", "", bedrock.CacheOff, true},
		{"meta.llama3-70b-instruct-v1:0", bedrock.CacheOff, bedrock.CacheOff, false},
		{sonnet4, bedrock.CacheOff, bedrock.CacheOff, false},
	}
	for _, tc := range tests {
		t.Run(tc.model+"/"+tc.want, func(t *testing.T) {
			got, note := bedrock.EffectiveCache(tc.model, tc.want)
			assert.Equal(t, tc.got, got)
			assert.Equal(t, tc.note, note != "", note)
		})
	}
}

// docs/contract.md#prompt-cache: Complete and CompleteStream both put the
// cache point at CachePrefix, with the TTL asked for, and send the
// stage's service tier; usage adds the cache's tokens back into the input.
func TestCachePointAndServiceTier(t *testing.T) {
	prompt := strings.Repeat("data ", 1200) + "\nQuestion: q\n"
	prefix := strings.Index(prompt, "Question:")
	for _, stream := range []bool{false, true} {
		for _, ttl := range []string{bedrock.CacheFiveMinute, "1h"} {
			t.Run(ttl, func(t *testing.T) {
				cache := &modeltest.PromptCache{MinTokens: 1024, Now: func() time.Time { return time.Unix(0, 0) }}
				fake := modeltest.NewConverseServer(t, cache.Wrap(modeltest.InOrder(modeltest.ConverseText(`{"answer":"a","usefulness":1}`, 0, 3))))
				m, err := bedrock.New(testConfig(fake.URL), "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
					bedrock.WithPromptCache(ttl), bedrock.WithServiceTier(globalsearch.StageMap, "flex"))
				require.NoError(t, err)
				req := globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: prompt, CachePrefix: prefix, MaxTokens: 10}
				var resps []globalsearch.ModelResponse
				for range 2 {
					var resp globalsearch.ModelResponse
					if stream {
						resp, err = m.CompleteStream(context.Background(), req, func(string) {})
					} else {
						resp, err = m.Complete(context.Background(), req)
					}
					require.NoError(t, err)
					resps = append(resps, resp)
				}
				assert.Positive(t, resps[0].CacheWriteInputTokens)
				assert.Equal(t, resps[0].CacheWriteInputTokens, resps[1].CacheReadInputTokens, "the second call reads what the first wrote")
				assert.Equal(t, resps[0].InputTokens, resps[1].InputTokens, "InputTokens counts every input token")
				body := fake.Calls()[0].Body
				content := body["messages"].([]any)[0].(map[string]any)["content"].([]any)
				require.Len(t, content, 3)
				assert.Equal(t, prompt[:prefix], content[0].(map[string]any)["text"])
				point := content[1].(map[string]any)["cachePoint"].(map[string]any)
				assert.Equal(t, "default", point["type"])
				if ttl == "1h" {
					assert.Equal(t, "1h", point["ttl"])
				} else {
					assert.NotContains(t, point, "ttl")
				}
				assert.Equal(t, prompt[prefix:], content[2].(map[string]any)["text"])
				assert.Equal(t, map[string]any{"type": "flex"}, body["serviceTier"])
			})
		}
	}
}

// With the cache off, no cache point, or no prefix to cache, the prompt is
// one block; a reduce call gets no map tier.
func TestNoCachePoint(t *testing.T) {
	tests := []struct {
		name    string
		model   string
		opts    []bedrock.Option
		req     globalsearch.ModelRequest
		blocks  int
		hasTier bool
	}{
		{"off", sonnet4, []bedrock.Option{bedrock.WithPromptCache(bedrock.CacheOff)}, globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "ab", CachePrefix: 1}, 1, false},
		{"model caches nothing", "meta.llama3-70b-instruct-v1:0", nil, globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "ab", CachePrefix: 1}, 1, false},
		{"question first", sonnet4, nil, globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "ab"}, 1, false},
		{"rating takes the map tier", sonnet4, []bedrock.Option{bedrock.WithServiceTier(globalsearch.StageMap, "priority")}, globalsearch.ModelRequest{Stage: globalsearch.StageRate, Prompt: "ab", CachePrefix: 1}, 3, true},
		{"reduce has its own tier", sonnet4, []bedrock.Option{bedrock.WithServiceTier(globalsearch.StageMap, "flex")}, globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Prompt: "ab"}, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(modeltest.ConverseText(`{"answer":"a","usefulness":1}`, 5, 3)))
			m, err := bedrock.New(testConfig(fake.URL), tc.model, tc.opts...)
			require.NoError(t, err)
			resp, err := m.Complete(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, 5, resp.InputTokens)
			body := fake.Calls()[0].Body
			assert.Len(t, body["messages"].([]any)[0].(map[string]any)["content"].([]any), tc.blocks)
			assert.Equal(t, tc.hasTier, body["serviceTier"] != nil)
		})
	}
}

func TestInvalidCacheAndTier(t *testing.T) {
	_, err := bedrock.New(testConfig("http://127.0.0.1:1"), sonnet4, bedrock.WithPromptCache("10m"))
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	_, err = bedrock.New(testConfig("http://127.0.0.1:1"), sonnet4, bedrock.WithServiceTier(globalsearch.StageReduce, "cheap"))
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "reduceServiceTier")
}
