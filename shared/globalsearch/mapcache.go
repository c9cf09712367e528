package globalsearch

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/batch"
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
	// CommunityIDs are the ids the part headers of the answered prompt
	// named, in first-seen order: the ids Answer cites, which a hit
	// replaces, position by position, with those of the batch that reuses
	// it (docs/contract.md#map-cache).
	CommunityIDs []string `json:"communityIds,omitempty"`
}

// mapCacheKeyVersion opens every key (docs/contract.md#map-cache). Keys
// made before it (over the prompt as sent, ids and all) are never made
// again, so the entries under them simply miss until they expire.
const mapCacheKeyVersion = "map-cache-key/2: header ids as positions"

// MapCacheKey is the key of a map call (docs/contract.md#map-cache): a
// SHA-256 over the key version, the model id, the system prompt, the
// rendered map prompt with the id in each part header replaced by its
// position among the prompt's headers (promptHeaderIDs), and the output
// reserve, each length-prefixed so no two different calls share a key. A
// renumbered index thus keys a batch of unchanged texts as before. The
// system prompt is sent with every call, so a change to it is a change of
// prompt and must not hit answers written under the old one. This is the
// key under the project's own system prompt; a map call keys by the one it
// sends (docs/contract.md#custom-prompts).
func MapCacheKey(modelID, prompt string, maxTokens int) string {
	key, _ := mapCacheKey(modelID, SystemPrompt, prompt, maxTokens)
	return key
}

// mapCacheKey is MapCacheKey under system, with the ids its positions
// stand for.
func mapCacheKey(modelID, system, prompt string, maxTokens int) (string, []string) {
	h := sha256.New()
	var n [8]byte
	writeLen := func(v int) {
		binary.BigEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	for _, s := range []string{mapCacheKeyVersion, modelID, system} {
		writeLen(len(s))
		h.Write([]byte(s))
	}
	// Each line is tagged, a header as its position and part number, any
	// other line as its length and bytes, so that no two prompts but those
	// differing only in their headers' ids write the same.
	var ids []string
	positions := map[string]int{}
	for line := range strings.SplitSeq(prompt, "\n") {
		id, part, ok := exactHeader(line)
		if !ok {
			h.Write([]byte{0})
			writeLen(len(line))
			h.Write([]byte(line))
			continue
		}
		pos, seen := positions[id]
		if !seen {
			pos = len(ids)
			positions[id] = pos
			ids = append(ids, id)
		}
		h.Write([]byte{1})
		writeLen(pos)
		writeLen(part)
	}
	h.Write([]byte{2})
	writeLen(maxTokens)
	return hex.EncodeToString(h.Sum(nil)), ids
}

// exactHeader reads a line that is a part header exactly as batch.Header
// writes it, so that a header-like line of a text, written otherwise,
// stays text to the key.
func exactHeader(line string) (id string, part int, ok bool) {
	if !strings.HasPrefix(line, headerPrefix) {
		return "", 0, false
	}
	id, part, ok = batch.ParseHeader(line)
	if !ok || batch.Header(id, part) != line {
		return "", 0, false
	}
	return id, part, true
}

// headerPrefix is how batch.Header opens a line.
var headerPrefix = batch.Header("", 1)[:len("[Community ID: ")]

// renumbered is c's answer held to the ids it was answered under and with
// each cited id replaced by the one at its position in ids, the header ids
// of the prompt that reuses it (docs/contract.md#map-cache). It returns how
// many cited ids the first step dropped, as a model call's answer reports
// them. Any mark form that MarkSpans reads is renumbered, the bytes of
// each id replaced and the rest kept. An entry whose ids are not as many
// as ids is damaged.
func (c CachedAnswer) renumbered(ids []string) (string, int, error) {
	if len(c.CommunityIDs) != len(ids) {
		return "", 0, fmt.Errorf("%w: it names %d communities, the prompt %d", errCachedAnswer, len(c.CommunityIDs), len(ids))
	}
	held, _, dropped := CiteWithin(c.Answer, c.CommunityIDs)
	to := make(map[string]string, len(ids))
	for i, id := range c.CommunityIDs {
		to[id] = ids[i]
	}
	var b strings.Builder
	from := 0
	for _, m := range MarkSpans(held) {
		for _, s := range m.IDs {
			if id, ok := to[s.ID]; ok {
				b.WriteString(held[from:s.Start])
				b.WriteString(id)
				from = s.End
			}
		}
	}
	b.WriteString(held[from:])
	return b.String(), dropped, nil
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
