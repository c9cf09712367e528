package cmdutil

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseFlags: every command that uses Parse prints its usage on
// -h (ErrHelp, exit 0), refuses a bad flag in one line with a hint and a
// stray argument as usage errors (exit 2), and names the flags given.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		wantSet map[string]bool
	}{
		{"flags given", []string{"--a", "x"}, "", map[string]bool{"a": true}},
		{"none", nil, "", map[string]bool{}},
		{"unknown flag", []string{"--c"}, "flag provided but not defined: -c (see globalsearch test -h)", nil},
		{"mistyped flag", []string{"--indx", "f"}, "flag provided but not defined: -indx (did you mean --index? see globalsearch test -h)", nil},
		{"swapped letters", []string{"-nmaespace", "f"}, "flag provided but not defined: -nmaespace (did you mean --namespace? see globalsearch test -h)", nil},
		{"too far from any", []string{"--zzz"}, "flag provided but not defined: -zzz (see globalsearch test -h)", nil},
		{"a flag's beginning", []string{"--name", "f"}, "flag provided but not defined: -name (did you mean --namespace? see globalsearch test -h)", nil},
		{"bad value", []string{"--b=maybe"}, `invalid boolean value "maybe" for -b: parse error (see globalsearch test -h)`, nil},
		{"stray argument", []string{"--a", "x", "extra"}, `unexpected argument "extra"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			fs := NewFlagSet("test", &out)
			fs.String("a", "", "")
			fs.Bool("b", false, "")
			fs.String("index", "", "")
			fs.String("namespace", "", "")
			set, err := Parse(fs, tc.args)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.wantSet, set)
				return
			}
			var usage *UsageError
			require.ErrorAs(t, err, &usage)
			assert.Equal(t, tc.wantErr, err.Error())
			assert.Empty(t, out.String()+errOut.String(), "one line, printed by the caller: no usage dump")
		})
	}
	t.Run("help", func(t *testing.T) {
		var out, errOut bytes.Buffer
		fs := NewFlagSet("test", &out)
		fs.String("a", "", "the a flag")
		_, err := Parse(fs, []string{"-h"})
		require.ErrorIs(t, err, ErrHelp)
		assert.Equal(t, "usage: globalsearch test [flags]\n\nflags:\n  -a string\n    \tthe a flag\n", out.String())
		assert.Empty(t, errOut.String())
	})
}
