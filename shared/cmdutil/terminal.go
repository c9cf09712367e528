package cmdutil

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TerminalText is s as the text output prints it to a terminal
// (docs/contract.md#local): answers, ids and messages come from the index
// and the model, and a control character in them (ESC, BEL, the 8-bit
// CSI, a carriage return) could recolour or clear the screen, retitle the
// window or overwrite a line. Each one except newline and tab is shown as
// its Go escape (\x1b), and so is a byte that is not UTF-8 (a lone 0x9b is
// CSI to an 8-bit terminal); CRLF line ends become newlines. --json prints
// the exact text instead.
func TerminalText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if utf8.ValidString(s) && !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&0xF, 16))
		case escaped(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func escaped(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }
