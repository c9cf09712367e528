package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeleteNamespace(t *testing.T) {
	ctx := context.Background()
	s := minidynEnv(t, "idx")
	path := writeIndex(t, smallIndex())
	env, _, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", path, "--table", "idx", "--create-table"}), errOut.String())
	env, _, errOut = testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"ingest", "--index", path, "--table", "idx", "--namespace", "other"}), errOut.String())

	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"delete-namespace", "--table", "idx", "--namespace", "tiny"}), errOut.String())
	assert.Equal(t, "namespace tiny in table idx: deleted\n", out.String())
	sums, err := s.Summaries(ctx, "tiny")
	require.NoError(t, err)
	assert.Empty(t, sums)
	names, err := s.Namespaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"other"}, names, "no longer listed")
	other, err := s.Summaries(ctx, "other")
	require.NoError(t, err)
	assert.Len(t, other, 3, "other namespaces untouched")

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no table", []string{"--namespace", "tiny"}, "--table is required"},
		{"no namespace", []string{"--table", "idx"}, "--namespace is required"},
		{"bad namespace", []string{"--table", "idx", "--namespace", "Bad!"}, "--namespace must be"},
		{"argument", []string{"--table", "idx", "--namespace", "tiny", "extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, 2, runMain(ctx, env, append([]string{"delete-namespace"}, tc.args...)))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}
