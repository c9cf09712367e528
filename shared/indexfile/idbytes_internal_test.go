package indexfile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzLiteral: literal reads a JSON string byte for byte. Written with
// only the escapes JSON requires, any bytes read back as themselves;
// written by encoding/json (which also escapes U+2028 and U+2029, and
// writes invalid bytes as U+FFFD), they read back as encoding/json reads
// them.
func FuzzLiteral(f *testing.F) {
	for _, s := range []string{"", "c1", "a\"b\\c/", "\x00\x1f\n\t", "x\xff", "中\xe4\xb8", "\u2028", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20:
				fmt.Fprintf(&b, `\u%04x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		lit := b.String()
		var decoded string
		require.NoError(t, json.Unmarshal([]byte(lit), &decoded))
		assert.Equal(t, s, literal(json.RawMessage(lit), decoded))

		std, err := json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(std, &decoded))
		assert.Equal(t, decoded, literal(std, decoded))
		assert.True(t, utf8.ValidString(literal(std, decoded)))
	})
}

// Escaped surrogates: a pair is its character, a half is its three-byte
// form (invalid UTF-8), whatever surrounds it.
func TestLiteralSurrogates(t *testing.T) {
	tests := []struct{ lit, want string }{
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00x"`, "😀x"},
		{`"\ud83d"`, "\xed\xa0\xbd"},
		{`"\ud83dx"`, "\xed\xa0\xbdx"},
		{`"\ud83d\u0041"`, "\xed\xa0\xbdA"},
		{`"\ud83d\ud83d\ude00"`, "\xed\xa0\xbd😀"},
		{`"\ude00\ud83d"`, "\xed\xb8\x80\xed\xa0\xbd"},
		{`"\\ud83d"`, `\ud83d`},
		{`"\ud83d\n"`, "\xed\xa0\xbd\n"},
	}
	for _, tc := range tests {
		t.Run(tc.lit, func(t *testing.T) {
			var decoded string
			require.NoError(t, json.Unmarshal([]byte(tc.lit), &decoded))
			assert.Equal(t, tc.want, literal(json.RawMessage(tc.lit), decoded))
		})
	}
}
