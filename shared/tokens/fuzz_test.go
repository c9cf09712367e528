package tokens_test

import (
	"math/big"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// FuzzEstimate checks Estimate against docs/contract.md#token-estimate as written,
// ceil(nonASCII/1.8 + ascii/4), in exact rational arithmetic over the code
// points a range loop decodes (an invalid byte decodes to U+FFFD, non-ASCII).
// It also checks that counts add across an ASCII joint, which packing relies on.
func FuzzEstimate(f *testing.F) {
	for _, s := range []string{"", "hello world", "中文测试", "A中文", "Hello, 世界!", "café", "😀", "\xff\xfe", "e\u0301", "\xe4\xb8x"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		require.Equal(t, specEstimate(a), tokens.Estimate(a))
		require.Equal(t, utf8.RuneCountInString(a), tokens.Of(a).Runes())
		// Joined at an ASCII byte, as packing joins texts, counts add. (Joined
		// directly they may not: "\xe4" + "\xb8\xad" is one rune, not three.)
		joined := a + "\n" + b
		require.Equal(t, tokens.Of(joined), tokens.Of(a).Add(tokens.Count{ASCII: 1}).Add(tokens.Of(b)))
		require.Equal(t, specEstimate(joined), tokens.Estimate(joined))
	})
}

func specEstimate(s string) int {
	var ascii, nonASCII int64
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			nonASCII++
		}
	}
	// nonASCII / 1.8 = nonASCII * 5/9.
	x := new(big.Rat).Add(big.NewRat(nonASCII*5, 9), big.NewRat(ascii, 4))
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int)) // x >= 0, so QuoRem floors
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return int(q.Int64())
}
