// Package bpe counts tokens exactly with OpenAI's public vocabularies,
// o200k_base and cl100k_base (docs/contract.md#token-estimate). Importing
// it registers both with shared/tokens; the vocabularies (several MB) are
// linked only into the binaries that import it, the ones that pack prompts.
package bpe

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// JoinMargin is the tokens a "\n" join may cost beyond the newline's own
// token. Joining two texts at "\n" can merge the newline into the last
// pre-split piece of the text before it (".\n" is one token), which saves
// a token, but the merged piece may also split differently than its two
// halves. TestJoinsNeverUndercount finds no join on Carol and the edge
// cases that costs more than the newline's token; the margin covers the
// joins it does not show, at a token a join.
const JoinMargin = 1

// Counter counts with one vocabulary. It is safe for concurrent use.
type Counter struct {
	name string
	// codec builds its vocabulary on first use, so a function that never
	// counts exactly never spends the start-up time.
	codec func() *codec.Codec

	mu    sync.Mutex
	lines map[string]int // line -> count
	bytes int            // of the keys of lines
}

var (
	// O200k is the vocabulary of gpt-4o, gpt-4.1, gpt-5 and the o-series.
	O200k = &Counter{name: tokens.NameO200k, codec: sync.OnceValue(codec.NewO200kBase), lines: map[string]int{}}
	// CL100k is the vocabulary of gpt-4 and gpt-3.5.
	CL100k = &Counter{name: tokens.NameCL100k, codec: sync.OnceValue(codec.NewCl100kBase), lines: map[string]int{}}
)

func init() {
	tokens.Register(O200k)
	tokens.Register(CL100k)
}

// Name is the tokenizer option's value.
func (c *Counter) Name() string { return c.name }

// Count is the exact token count of s. Special tokens (<|endoftext|>) are
// counted as the text they spell, as a chat API counts user content.
func (c *Counter) Count(s string) int {
	n, err := c.codec().Count(s)
	if err != nil {
		// The codec fails only when its pattern engine times out, which it
		// never does without a timeout set; a count of one token per byte
		// is an upper bound all the same.
		return len(s)
	}
	return n
}

// Of measures s exactly: Count(s), summed over pieces of s cut where the
// cut cannot change how the text on either side splits, each piece counted
// once per process (docs/contract.md#tokenizer). A plan's text repeats its
// words and its claims' excerpts, so few pieces reach the vocabulary.
func (c *Counter) Of(s string) tokens.Count {
	n := 0
	for s != "" {
		i := cut(s)
		n += c.cached(s[:i])
		s = s[i:]
	}
	return tokens.Count{Exact: n}
}

// cut is the end of the first piece of s. Both vocabularies pre-split text
// with a pattern that looks at no text before a piece, so a cut where a
// piece must end anyway adds counts exactly. A piece must end:
//   - before " " between two ASCII letters: letters only ever join letters
//     (a space then joins the word after it);
//   - after "\n" followed by anything but blank space, another line break,
//     "/" (o200k joins "/" to the punctuation and breaks before it) or an
//     invalid byte: the pieces that hold a line break end at such a
//     character, and no piece starts with a line break unless one of those
//     precedes it.
func cut(s string) int {
	for i := 1; i < len(s); i++ {
		switch b := s[i-1]; {
		case s[i] == ' ' && isLetter(b) && i+1 < len(s) && isLetter(s[i+1]):
			return i
		case b == '\n':
			if r, _ := utf8.DecodeRuneInString(s[i:]); r != '/' && r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.Is(unicode.Z, r) {
				return i
			}
		}
	}
	return len(s)
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// maxCachedBytes bounds the line cache; when full it starts afresh.
const maxCachedBytes = 64 << 20

func (c *Counter) cached(line string) int {
	c.mu.Lock()
	n, ok := c.lines[line]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.Count(line)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(line) > maxCachedBytes {
		clear(c.lines)
		c.bytes = 0
	}
	if _, ok := c.lines[line]; !ok {
		// A copy: the key must not keep the whole text it was cut from.
		c.lines[strings.Clone(line)] = n
		c.bytes += len(line)
	}
	return n
}

// Join is the newline's token and the margin a join needs.
func (c *Counter) Join() tokens.Count { return tokens.Count{Exact: 1 + JoinMargin} }

// Tokens is the exact count a measure holds.
func (c *Counter) Tokens(n tokens.Count) int { return n.Exact }

// ByCodePoint is false: a token spans code points, so a prefix is counted
// afresh.
func (c *Counter) ByCodePoint() bool { return false }
