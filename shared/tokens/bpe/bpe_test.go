package bpe_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/tokens/bpe"
)

var counters = []*bpe.Counter{bpe.O200k, bpe.CL100k}

// edgeTexts are line breaks next to what the vocabularies' pre-split
// pattern joins across them: blanks, more breaks, "/" (o200k), invalid
// bytes, ideographic and no-break spaces.
var edgeTexts = []string{
	"", "\n", "a\n", "\na", "a\nb", "a\n\nb", "a.\n\n\nb", "}\n// comment", "x \n y", "x\n\ty", "a\n\u3000b",
	"a b", "A B c", "it's fine", "x  y", "a b\n c", "don't Stop ME now", "naïve café au lait", "a\u0301 b",
	"a\n\u00a0b", "\xff\n\xff", "1\n2", "'s\n's", "end.\n[Community ID: c1 | summary part 1]\ntext",
	"func f() {\n\treturn nil\n}\n\n// Next\nfunc g() {}\n", "港口\n贸易。\n\n能源", "a\r\nb\r\n", "a\n/b", "a\n /b",
}

// TestOfIsTheExactCount proves the line cut of Of never changes a count:
// Of, summed over cut lines and cached, equals the codec's count of the
// whole text, on edge cases and on every Carol summary and map text.
func TestOfIsTheExactCount(t *testing.T) {
	texts := append([]string{}, edgeTexts...)
	for _, c := range counters {
		for _, s := range texts {
			assert.Equal(t, c.Count(s), c.Tokens(c.Of(s)), "%s %q", c.Name(), s)
			assert.Equal(t, c.Count(s), c.Tokens(c.Of(s)), "%s %q, cached", c.Name(), s)
		}
	}
	t.Run("carol", func(t *testing.T) {
		recs, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
		require.NoError(t, err)
		var all strings.Builder
		for _, s := range recs.Summaries {
			all.WriteString(s.Summary + "\n")
		}
		for _, ch := range recs.Chunks {
			all.WriteString(ch.Text + "\n")
		}
		for _, c := range counters {
			for _, s := range recs.Summaries {
				require.Equal(t, c.Count(s.Summary), c.Tokens(c.Of(s.Summary)), "%s summary %s", c.Name(), s.ID)
			}
			assert.Equal(t, c.Count(all.String()), c.Tokens(c.Of(all.String())), c.Name())
		}
	})
}

func FuzzOfIsTheExactCount(f *testing.F) {
	for _, s := range edgeTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range counters {
			require.Equal(t, c.Count(s), c.Tokens(c.Of(s)), "%s %q", c.Name(), s)
		}
	})
}

func TestRegistered(t *testing.T) {
	for _, c := range counters {
		got, err := tokens.For(c.Name(), "")
		require.NoError(t, err)
		assert.Same(t, c, got)
		assert.False(t, got.ByCodePoint())
		assert.Equal(t, tokens.Count{Exact: 1 + bpe.JoinMargin}, got.Join())
	}
	assert.Equal(t, 2, bpe.O200k.Count("hello world"))
}

// TestJoinsNeverUndercount joins texts as packing does, text + "\n" +
// part header..., and checks the joined count never exceeds the parts'
// counts plus Join: the newline's token and JoinMargin. It logs the worst
// excess over the parts' sum, which says how much of the margin a join
// used (docs/contract.md#tokenizer).
func TestJoinsNeverUndercount(t *testing.T) {
	var texts []string
	texts = append(texts, edgeTexts...)
	texts = append(texts, "end with spaces   ", "ends with a dot.", "ends with a slash /", "trailing tab\t", "数字123", "。", "」")
	if dir, ok := carolDir(t); ok {
		recs, _, err := graphrag.Import(context.Background(), dir, graphrag.Options{})
		require.NoError(t, err)
		for _, s := range recs.Summaries[:min(40, len(recs.Summaries))] {
			texts = append(texts, s.Summary)
		}
	}
	for _, c := range counters {
		worst := -1 << 30
		for _, a := range texts {
			for _, b := range []string{"[Community ID: c1 | summary part 1]\nbody", "</data>\nreminder"} {
				excess := c.Count(a+"\n"+b) - c.Count(a) - c.Count(b)
				worst = max(worst, excess)
				assert.LessOrEqual(t, excess, c.Tokens(c.Join()), "%s %q", c.Name(), a)
			}
		}
		t.Logf("%s: a join costs at most %d tokens over its parts (Join allows %d)", c.Name(), worst, c.Tokens(c.Join()))
	}
}

// carolDir is the Carol corpus, or false (with a log) where it is absent.
func carolDir(t *testing.T) (string, bool) {
	var dir string
	ok := t.Run("carol present", func(t *testing.T) { dir = corpus.Dir(t, corpus.ChristmasCarol) })
	return dir, ok && dir != ""
}
