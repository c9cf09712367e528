package globalsearch_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// docs/contract.md#errors: a value from the input is shown bare when it is
// plain text, quoted otherwise, and cut after MaxEchoedRunes characters.
func TestEcho(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain id", "c1-社区/(2024)", "c1-社区/(2024)"},
		{"brackets and bars are plain", "[k1|", "[k1|"},
		{"empty", "", `""`},
		{"space", "a b", `"a b"`},
		{"newline", "a\nb", `"a\nb"`},
		{"terminal escape", "\x1b[31mred", `"\x1b[31mred"`},
		{"line separator", "a\u2028b", `"a\u2028b"`},
		{"bidi override", "a\u202eb", `"a\u202eb"`},
		{"zero-width space", "a\u200bb", `"a\u200bb"`},
		{"invalid UTF-8", "a\xffb", `"a\xffb"`},
		{"a quote", `a"b`, `"a\"b"`},
		{"long plain", strings.Repeat("é", 1<<20), strings.Repeat("é", gs.MaxEchoedRunes) + "…"},
		{"long quoted", strings.Repeat("\n", 1<<20), `"` + strings.Repeat(`\n`, gs.MaxEchoedRunes) + `"…`},
		{"exactly the limit", strings.Repeat("x", gs.MaxEchoedRunes), strings.Repeat("x", gs.MaxEchoedRunes)},
		{"cut never splits a character", strings.Repeat("x", gs.MaxEchoedRunes-1) + "社区", strings.Repeat("x", gs.MaxEchoedRunes-1) + "社…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gs.Echo(tc.in))
		})
	}
}

func TestEchoQuoted(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "mapBudget", `"mapBudget"`},
		{"control", "a\x1bb", `"a\x1bb"`},
		{"long", strings.Repeat("k", 1<<20), `"` + strings.Repeat("k", gs.MaxEchoedRunes) + `"…`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gs.EchoQuoted(tc.in))
		})
	}
}
