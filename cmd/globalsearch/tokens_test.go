package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokensCommand(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"hello world", "3\n"}, {"中文测试", "3\n"}, {"", "0\n"},
	}
	for _, tc := range tests {
		env, out, _ := testEnv(tc.in)
		assert.Equal(t, 0, runMain(context.Background(), env, []string{"tokens"}))
		assert.Equal(t, tc.want, out.String())
	}
}
