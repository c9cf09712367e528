package cmdutil

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValues: each value tells a flag left out from one given its zero,
// and refuses what its form does not hold.
func TestValues(t *testing.T) {
	var (
		price   Price
		timeout = Duration{Parse: time.ParseDuration}
		tri     TriState
		list    List
		n       int
		auto    bool
		fs      = flag.NewFlagSet("test", flag.ContinueOnError)
		unset   Price
	)
	fs.SetOutput(io.Discard)
	fs.Var(&price, "price", "")
	fs.Var(&timeout, "timeout", "")
	fs.Var(&tri, "tri", "")
	fs.Var(&list, "list", "")
	fs.Var(IntOrAuto{N: &n, Auto: &auto, What: "calls"}, "n", "")
	require.NoError(t, fs.Parse([]string{"--price", "0", "--timeout", "90s", "--tri", "--list", "a, b", "--list", "c", "--n", "auto"}))
	assert.Equal(t, Price{USD: 0, Given: true}, price)
	assert.Equal(t, "", unset.String(), "a price not given prints as none, not 0")
	assert.Equal(t, 90*time.Second, timeout.D)
	assert.True(t, timeout.Given)
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
		{"negative price", []string{"--price", "-1"}, "price must be a non-negative number"},
		{"not a boolean", []string{"--tri=maybe"}, `want true or false, got "maybe"`},
		{"neither a number nor auto", []string{"--n", "lots"}, `want a number of calls or "auto"`},
		{"not a duration", []string{"--timeout", "soon"}, `invalid value "soon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := fs.Parse(tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
