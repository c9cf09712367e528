// Package bpe counts tokens exactly with OpenAI's public vocabularies,
// o200k_base and cl100k_base (docs/contract.md#token-estimate). Importing
// it registers both with shared/tokens; the vocabularies (several MB) are
// linked only into the binaries that import it, the ones that pack prompts.
package bpe

import (
	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// JoinMargin is the tokens a "\n" join may cost beyond the newline's own
// token. Joining two texts at "\n" can merge the newline into the last
// pre-token of the text before it (".\n" is one token), which only saves
// tokens, but the merged pre-token may also split differently than its
// two halves; TestJoinsNeverUndercount measures the worst case over the
// project's corpora and this margin holds it.
const JoinMargin = 1

// Counter counts with one vocabulary. It is safe for concurrent use.
type Counter struct {
	name  string
	codec *codec.Codec
}

var (
	// O200k is the vocabulary of gpt-4o, gpt-4.1, gpt-5 and the o-series.
	O200k = &Counter{name: tokens.NameO200k, codec: codec.NewO200kBase()}
	// CL100k is the vocabulary of gpt-4 and gpt-3.5.
	CL100k = &Counter{name: tokens.NameCL100k, codec: codec.NewCl100kBase()}
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
	n, err := c.codec.Count(s)
	if err != nil {
		// The codec fails only when its pattern engine times out, which it
		// never does without a timeout set; a count of one token per byte
		// is an upper bound all the same.
		return len(s)
	}
	return n
}

// Of measures s exactly.
func (c *Counter) Of(s string) tokens.Count { return tokens.Count{Exact: c.Count(s)} }

// Join is the newline's token and the margin a join needs.
func (c *Counter) Join() tokens.Count { return tokens.Count{Exact: 1 + JoinMargin} }

// Tokens is the exact count a measure holds.
func (c *Counter) Tokens(n tokens.Count) int { return n.Exact }

// ByCodePoint is false: a token spans code points, so a prefix is counted
// afresh.
func (c *Counter) ByCodePoint() bool { return false }
