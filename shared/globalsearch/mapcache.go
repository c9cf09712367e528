package globalsearch

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// MapCache keeps validated map answers (docs/contract.md#map-cache), so a run over an
// unchanged index does not pay for the same map call twice. Its entries
// expire; an expired entry reads as absent.
type MapCache interface {
	// CachedMapAnswer returns the answer stored under key, if any.
	CachedMapAnswer(ctx context.Context, key string) (CachedAnswer, bool, error)
	// CacheMapAnswer stores a under key, replacing what was there.
	CacheMapAnswer(ctx context.Context, key string, a CachedAnswer) error
}

// DefaultMapCacheTTL is how long a cached map answer lives unless its
// cache is told otherwise (docs/contract.md#map-cache): the directory cache
// and the cache table alike.
const DefaultMapCacheTTL = 30 * 24 * time.Hour

// CachedAnswer is what a cache hit reuses: the validated output of a map
// call, without the usage of the call that produced it.
type CachedAnswer struct {
	Answer     string  `json:"answer"`
	Usefulness float64 `json:"usefulness"`
}

// MapCacheKey is the key of a map call (docs/contract.md#map-cache): a SHA-256 over the
// model id, the system prompt, the rendered map prompt and the output
// reserve, each length-prefixed so no two different calls share a key. The
// system prompt is sent with every call, so a change to it is a change of
// prompt and must not hit answers written under the old one. This is the
// key under the project's own system prompt; a map call keys by the one it
// sends (docs/contract.md#custom-prompts).
func MapCacheKey(modelID, prompt string, maxTokens int) string {
	return mapCacheKey(modelID, SystemPrompt, prompt, maxTokens)
}

func mapCacheKey(modelID, system, prompt string, maxTokens int) string {
	h := sha256.New()
	var n [8]byte
	for _, s := range []string{modelID, system, prompt} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	binary.BigEndian.PutUint64(n[:], uint64(maxTokens))
	h.Write(n[:])
	return hex.EncodeToString(h.Sum(nil))
}

var mapCacheKeyPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// CheckMapCacheKey refuses a key MapCacheKey cannot have returned, before
// a cache reads or writes anything (docs/contract.md#map-cache): the directory cache
// makes a file name of the key, and both caches take the same keys.
func CheckMapCacheKey(key string) error {
	if !mapCacheKeyPattern.MatchString(key) {
		return Errorf(KindInvalidInput, "map cache key %.72q is not a SHA-256 in hex", key)
	}
	return nil
}

var errCachedAnswer = errors.New("cached map answer breaks the map output rules")

// check applies docs/contract.md#model-output's rules to a cached answer: a cache is storage
// that may be edited or damaged, and only a valid answer may be reused.
func (c CachedAnswer) check() error {
	if _, err := checkMapAnswer(c.Answer, c.Usefulness); err != nil {
		return fmt.Errorf("%w: %v", errCachedAnswer, err)
	}
	return nil
}
