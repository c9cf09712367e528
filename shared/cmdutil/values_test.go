package cmdutil

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValues: each value tells a flag left out from one given its zero,
// and refuses what its form does not hold.
func TestValues(t *testing.T) {
	var (
		tri  TriState
		list List
		n    int
		auto bool
		fs   = flag.NewFlagSet("test", flag.ContinueOnError)
	)
	fs.SetOutput(io.Discard)
	fs.Var(&tri, "tri", "")
	fs.Var(&list, "list", "")
	fs.Var(IntOrAuto{N: &n, Auto: &auto, What: "calls"}, "n", "")
	require.NoError(t, fs.Parse([]string{"--tri", "--list", "a, b", "--list", "c", "--n", "auto"}))
	assert.Equal(t, TriState{Given: true, On: true}, tri)
	assert.Equal(t, List{"a", "b", "c"}, list)
	assert.True(t, auto)
	assert.Equal(t, "auto", IntOrAuto{N: &n, Auto: &auto}.String())
	require.NoError(t, fs.Parse([]string{"--n", "3"}))
	assert.Equal(t, 3, n)
	assert.False(t, auto)

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not a boolean", []string{"--tri=maybe"}, `want true or false, got "maybe"`},
		{"neither a number nor auto", []string{"--n", "lots"}, `want a number of calls or "auto"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := fs.Parse(tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
