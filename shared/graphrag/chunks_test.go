package graphrag

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestExcerptID checks the id rule of docs/contract.md#ids (1-256 bytes of UTF-8, no
// control characters, none of "[", "]", "|") whatever the text unit id is.
func TestExcerptID(t *testing.T) {
	tests := []struct {
		name, unit, wantLead string
	}{
		{name: "GraphRAG sha512 unit id", unit: strings.Repeat("f5b3fc51", 16), wantLead: "f5b3fc51~"},
		{name: "short id", unit: "t1", wantLead: "t1~"},
		{name: "no unit", unit: "", wantLead: "excerpt~"},
		{name: "header characters", unit: "a[1]|b", wantLead: "a~"},
		{name: "control character", unit: "u\n1", wantLead: "u~"},
		{name: "non-ASCII", unit: "日本", wantLead: "excerpt~"},
		{name: "unit id over 256 bytes", unit: strings.Repeat("x", 300), wantLead: "xxxxxxxx~"},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := excerptID(tc.unit, "Bah! Humbug!")
			assert.True(t, strings.HasPrefix(id, tc.wantLead), id)
			assert.True(t, len(id) >= 1 && len(id) <= 256 && utf8.ValidString(id), id)
			assert.False(t, strings.ContainsAny(id, "[]|"), id)
			assert.False(t, strings.ContainsFunc(id, unicode.IsControl), id)
			assert.Equal(t, id, excerptID(tc.unit, "Bah! Humbug!"), "stable")
			assert.NotEqual(t, id, excerptID(tc.unit, "Bah! Humbug"), "the text counts")
			assert.NotContains(t, seen, id, "the unit counts")
			seen[id] = tc.unit
		})
	}
}
