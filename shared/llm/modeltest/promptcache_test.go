package modeltest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func cachedCall(prefix, rest, ttl string) modeltest.ConverseCall {
	point := map[string]any{"type": "default"}
	if ttl != "" {
		point["ttl"] = ttl
	}
	return modeltest.ConverseCall{Seq: 1, ModelID: "m", Body: map[string]any{
		"system": []any{map[string]any{"text": "sys"}},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"text": prefix}, map[string]any{"cachePoint": point}, map[string]any{"text": rest}}}},
	}}
}

// The double caches as Bedrock does: a prefix under the minimum is not
// cached, a hit renews the TTL, an expired entry is written again, and
// usage is in Bedrock's fields with inputTokens the uncached part.
func TestPromptCacheDouble(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	pre := tokens.Estimate("sys" + long)
	now := time.Unix(0, 0)
	tests := []struct {
		name              string
		advance           time.Duration
		prefix, ttl       string
		read, write, rest int
	}{
		{"first call writes", 0, long, "", 0, pre, tokens.Estimate("q1")},
		{"within 5m reads", 4 * time.Minute, long, "", pre, 0, tokens.Estimate("q1")},
		{"a hit renewed the TTL", 4 * time.Minute, long, "", pre, 0, tokens.Estimate("q1")},
		{"after the TTL it writes again", 6 * time.Minute, long, "", 0, pre, tokens.Estimate("q1")},
		{"under the minimum nothing is cached", 0, "short", "", 0, 0, tokens.Estimate("sysshort") + tokens.Estimate("q1")},
	}
	cache := &modeltest.PromptCache{MinTokens: 1000, Now: func() time.Time { return now }}
	script := cache.Wrap(modeltest.InOrder(modeltest.ConverseText("ok", 0, 1)))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now = now.Add(tc.advance)
			rep := script(cachedCall(tc.prefix, "q1", tc.ttl))
			assert.Equal(t, tc.read, rep.CacheReadInputTokens)
			assert.Equal(t, tc.write, rep.CacheWriteInputTokens)
			assert.Equal(t, tc.rest, rep.InputTokens)
		})
	}
	t.Run("a 1h point outlives 5 minutes", func(t *testing.T) {
		c := &modeltest.PromptCache{MinTokens: 1000, Now: func() time.Time { return now }}
		s := c.Wrap(modeltest.InOrder(modeltest.ConverseText("ok", 0, 1)))
		assert.Positive(t, s(cachedCall(long, "q", "1h")).CacheWriteInputTokens)
		now = now.Add(50 * time.Minute)
		assert.Positive(t, s(cachedCall(long, "q2", "1h")).CacheReadInputTokens)
	})
	t.Run("errors pass through", func(t *testing.T) {
		s := cache.Wrap(modeltest.InOrder(modeltest.ConverseError(429, "ThrottlingException")))
		assert.Equal(t, "ThrottlingException", s(cachedCall(long, "q", "")).ErrorType)
	})
}
