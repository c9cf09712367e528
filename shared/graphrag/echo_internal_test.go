package graphrag

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A cell that is not an integer is named in the message, cut
// (globalsearch.Echo): a 1 MB text in an integer column gives a short
// message.
func TestNotAnIntegerCutsTheValue(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"short text", "x", `"x" is not an integer`},
		{"huge text", strings.Repeat("9x", 1<<19), `"` + strings.Repeat("9x", globalsearch.MaxEchoedRunes/2) + `"… is not an integer`},
		{"another type", []byte("ab"), `"[97 98]" ([]uint8) is not an integer`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := toInt(tc.v)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
