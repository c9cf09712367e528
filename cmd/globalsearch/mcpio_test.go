package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPMessageCap: a message over the cap is answered with a JSON-RPC
// error naming the cap, without being held in memory, and the server
// goes on serving the next message.
func TestMCPMessageCap(t *testing.T) {
	path := writeIndex(t, smallIndex())
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	env, _, errOut := testEnv("")
	env.stdin, env.stdout = stdinR, stdoutW
	done := make(chan int, 1)
	go func() {
		done <- runMain(t.Context(), env, []string{"mcp", "--index", path, "--no-cache"})
		_ = stdoutW.Close()
	}()
	lines := bufio.NewScanner(stdoutR)
	lines.Buffer(nil, 1<<20)
	send := func(msg string) {
		t.Helper()
		_, err := io.WriteString(stdinW, msg+"\n")
		require.NoError(t, err)
	}
	type response struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	receive := func() response {
		t.Helper()
		require.True(t, lines.Scan(), "a response line: %v", lines.Err())
		var r response
		require.NoError(t, json.Unmarshal(lines.Bytes(), &r), lines.Text())
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Nil(t, receive().Error)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	tests := []struct {
		name, msg, wantID string
	}{
		{"id first", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan_search","arguments":{"query":"` + strings.Repeat("x", 2<<20) + `"}}}`, "2"},
		{"string id", `{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"plan_search","arguments":{"query":"` + strings.Repeat("x", 1<<20) + `"}}}`, `"two"`},
		{"id after the cap", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"plan_search","arguments":{"query":"` + strings.Repeat("x", 1<<20) + `"}},"id":3}`, "null"},
		{"no JSON at all", strings.Repeat("[", 1<<20+1), "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			send(tc.msg)
			r := receive()
			assert.Equal(t, tc.wantID, string(r.ID))
			require.NotNil(t, r.Error, "a JSON-RPC error")
			assert.Equal(t, -32600, r.Error.Code)
			assert.Equal(t, fmt.Sprintf("message of %d bytes refused: this server reads at most 1048576 bytes (1 MiB) per message", len(tc.msg)+1), r.Error.Message)
		})
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plan_search","arguments":{"query":"q"}}}`)
	r := receive()
	assert.Equal(t, "4", string(r.ID))
	assert.Nil(t, r.Error, "the server serves on")
	assert.Contains(t, string(r.Result), `"batches"`)
	require.NoError(t, stdinW.Close())
	assert.Equal(t, 0, <-done, errOut.String())
}
