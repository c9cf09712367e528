package modeltest

import (
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// PromptCache makes a ConverseServer cache prompts as Bedrock does
// (docs/contract.md#prompt-cache): the text of a call up to its first
// cachePoint block (the system prompt, then the user message's blocks
// before the point), for the same model, is the prefix. A prefix of fewer
// than MinTokens is not cached. A prefix seen within its TTL (the point's
// ttl, 5m when none) is read from the cache and its TTL starts again;
// otherwise it is written. Usage is reported in Bedrock's fields, with
// inputTokens the tokens after the point only. Tokens are the project's
// estimate of each text.
type PromptCache struct {
	MinTokens int
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu      sync.Mutex
	entries map[[32]byte]time.Time // prefix -> when it expires
}

// Wrap is script with the usage of each success replaced by what the
// cache makes of the call; errors pass through unchanged.
func (c *PromptCache) Wrap(script func(ConverseCall) ConverseReply) func(ConverseCall) ConverseReply {
	return func(call ConverseCall) ConverseReply {
		rep := script(call)
		if rep.ErrorType != "" {
			return rep
		}
		prefix, rest, ttl := splitAtCachePoint(call)
		pre, post := tokens.Estimate(prefix), tokens.Estimate(rest)
		rep.InputTokens, rep.CacheReadInputTokens, rep.CacheWriteInputTokens = pre+post, 0, 0
		if ttl == 0 || pre < c.MinTokens {
			return rep
		}
		rep.InputTokens = post
		if c.hit(call.ModelID+"\x00"+prefix, ttl) {
			rep.CacheReadInputTokens = pre
		} else {
			rep.CacheWriteInputTokens = pre
		}
		return rep
	}
}

// hit reports whether key is cached and unexpired, and (re)starts its TTL
// either way: a read renews it, a write creates it.
func (c *PromptCache) hit(key string, ttl time.Duration) bool {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[[32]byte]time.Time{}
	}
	k := sha256.Sum256([]byte(key))
	t := now()
	expires, ok := c.entries[k]
	c.entries[k] = t.Add(ttl)
	return ok && t.Before(expires)
}

// splitAtCachePoint is the call's text before its first cachePoint and
// after it, and the point's TTL; 0 when the call has no cache point.
func splitAtCachePoint(call ConverseCall) (string, string, time.Duration) {
	var before, after strings.Builder
	var ttl time.Duration
	for _, b := range asList(call.Body["system"]) {
		text, _ := asMap(b)["text"].(string)
		before.WriteString(text)
	}
	for _, m := range asList(call.Body["messages"]) {
		for _, b := range asList(asMap(m)["content"]) {
			block := asMap(b)
			if point, ok := block["cachePoint"]; ok && ttl == 0 {
				ttl = 5 * time.Minute
				if asMap(point)["ttl"] == "1h" {
					ttl = time.Hour
				}
				continue
			}
			text, _ := block["text"].(string)
			if ttl == 0 {
				before.WriteString(text)
			} else {
				after.WriteString(text)
			}
		}
	}
	if ttl == 0 {
		return "", before.String(), 0
	}
	return before.String(), after.String(), ttl
}

func asList(v any) []any         { l, _ := v.([]any); return l }
func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
