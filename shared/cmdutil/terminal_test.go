package cmdutil_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
)

func TestTerminalText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text, newlines and tabs", "a\tb\nc 中文 👩‍💻", "a\tb\nc 中文 👩‍💻"},
		{"colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"window title", "\x1b]0;pwned\a", `\x1b]0;pwned\a`},
		{"8-bit CSI as UTF-8", "a\u009b2Jb", `a\u009b2Jb`},
		{"8-bit CSI as a raw byte", "a\x9b2Jb", `a\x9b2Jb`},
		{"CRLF line ends", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"a carriage return that rewrites the line", "safe\rrm -rf", `safe\rrm -rf`},
		{"backspace and delete", "ab\b\x7f", `ab\b\x7f`},
		{"NUL", "a\x00b", `a\x00b`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, cmdutil.TerminalText(tc.in))
		})
	}
}
