package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokensCommand(t *testing.T) {
	tests := []struct {
		in   string
		args []string
		code int
		want string
		err  string
	}{
		{"hello world", nil, 0, "3\n", ""},
		{"中文测试", nil, 0, "3\n", ""},
		{"", nil, 0, "0\n", ""},
		{"hello world", []string{"--tokenizer", "o200k"}, 0, "2\n", ""},
		{"hello world", []string{"--tokenizer", "cl100k"}, 0, "2\n", ""},
		// 11 ASCII code points at 4.0 a token and 15% headroom: ceil(3.1625).
		{"hello world", []string{"--tokenizer", "calibrated", "--model", "bedrock:anthropic.claude-3-haiku"}, 0, "4\n", ""},
		{"x", []string{"--tokenizer", "p50k"}, 2, "", "--tokenizer: tokenizer must be one of estimate, o200k, cl100k, calibrated"},
		{"x", []string{"file.txt"}, 2, "", "tokens takes no arguments; it reads standard input"},
	}
	for _, tc := range tests {
		env, out, errOut := testEnv(tc.in)
		assert.Equal(t, tc.code, runMain(context.Background(), env, append([]string{"tokens"}, tc.args...)), tc.args)
		assert.Equal(t, tc.want, out.String(), tc.args)
		assert.Contains(t, errOut.String(), tc.err, tc.args)
	}
}
