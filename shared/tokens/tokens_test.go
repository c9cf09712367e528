package tokens_test

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func TestEstimate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"hello world", "hello world", 3},
		{"cjk", "中文测试", 3},
		{"mixed", "A中文", 2},
		{"mixed punctuation", "Hello, 世界!", 4},
		{"accent", "café", 2},
		{"emoji", "😀", 1},
		{"five ascii", "abcde", 2},
		{"nine cjk", strings.Repeat("中", 9), 5},
		{"ten cjk", strings.Repeat("中", 10), 6},
		{"400 x", strings.Repeat("x", 400), 100},
		{"invalid bytes count as U+FFFD", "\xff\xfe", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tokens.Estimate(tc.in))
		})
	}
}

// The integer formula must agree with the float definition of docs/contract.md#token-estimate on
// every small count, including the exact multiples where a float could round
// the wrong way.
func TestCountTokensMatchesFloatDefinition(t *testing.T) {
	for n := 0; n <= 200; n++ {
		for a := 0; a <= 200; a++ {
			want := int(math.Ceil(float64(n)/1.8 + float64(a)/4))
			// Floats land a hair above an integer at some multiples of 9; the
			// exact rational value is (20n+9a)/36.
			if (20*n+9*a)%36 == 0 {
				want = (20*n + 9*a) / 36
			}
			got := tokens.Count{ASCII: a, NonASCII: n}.Tokens()
			if got != want {
				t.Fatalf("n=%d a=%d: got %d want %d", n, a, got, want)
			}
		}
	}
}

func TestCountAddsLikeConcatenation(t *testing.T) {
	parts := []string{"", "abc", "中文", "😀x", "\xff", "café au lait"}
	for _, a := range parts {
		for _, b := range parts {
			assert.Equal(t, tokens.Of(a+b), tokens.Of(a).Add(tokens.Of(b)), "%q + %q", a, b)
			assert.Equal(t, utf8.RuneCountInString(a+b), tokens.Of(a+b).Runes())
		}
	}
}

func BenchmarkEstimate(b *testing.B) {
	for _, bc := range []struct {
		name string
		text string
	}{
		{"ascii", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1000)},
		{"cjk", strings.Repeat("全球趋势与社区摘要。", 1000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				tokens.Estimate(bc.text)
			}
		})
	}
}

func TestPromptMeasuresTheSentText(t *testing.T) {
	cases := []struct{ skeleton, content string }{
		{"Q: x\n<data>\n</data>", ""},
		{"Q: x", "some content"},
		{"問題", "内容 and text\n[Community ID: a | summary part 1]"},
	}
	for _, tc := range cases {
		sent := tokens.Estimate(tc.skeleton + "\n" + tc.content)
		p := tokens.NewPrompt(tc.skeleton)
		assert.Equal(t, sent, p.Tokens(tokens.Of(tc.content)), tc.skeleton)
		assert.True(t, p.Fits(tokens.Of(tc.content), sent))
		assert.False(t, p.Fits(tokens.Of(tc.content), sent-1))
	}
}
