package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
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
	var errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- fileServer(path, &errOut).Serve(t.Context(), stdinR, stdoutW)
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
	assert.NoError(t, <-done, errOut.String())
}

// mcpExchange serves stdin, every line written before it starts and the
// input closed after the last, as a client that writes and closes; it
// returns the responses by id (null for the ones JSON-RPC answers with
// no id), the log and Serve's error.
func mcpExchange(t *testing.T, stdin string) (map[string][]mcpResponse, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := fileServer(writeIndex(t, smallIndex()), &errOut).Serve(t.Context(), strings.NewReader(stdin), &out)
	lines := bufio.NewScanner(&out)
	byID := map[string][]mcpResponse{}
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var r mcpResponse
		require.NoError(t, json.Unmarshal(lines.Bytes(), &r), lines.Text())
		require.Equal(t, "2.0", r.JSONRPC, lines.Text())
		byID[string(r.ID)] = append(byID[string(r.ID)], r)
	}
	return byID, errOut.String(), err
}

type mcpResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

const (
	mcpInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	mcpToolsList   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	mcpParseError  = -32700
	mcpInvalidCall = -32600
)

// TestMCPMalformedLines: each line that is not JSON, or is JSON but not a
// valid request, gets its JSON-RPC error (docs/contract.md#mcp-messages),
// and the tools/list on the next line still gets its answer: one bad
// message costs its own answer, never the session or the next message.
func TestMCPMalformedLines(t *testing.T) {
	oversized := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"` + strings.Repeat("x", 1<<20) + `"}}`
	tests := []struct {
		name, line string
		wantCode   int
		wantID     string
		wantText   string
	}{
		{"not JSON", "this is not json", mcpParseError, "null", "Parse error: invalid character 'h' in literal true (expecting 'r') (at byte 2)"},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"tools/li`, mcpParseError, "null", "Parse error: the line ends inside a JSON value (a message is one line)"},
		{"two values on a line", `{"jsonrpc":"2.0","id":7,"method":"ping"} {}`, mcpParseError, "null", "Parse error: invalid character '{' after top-level value (at byte 42)"},
		{"100,000 deep", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), mcpParseError, "null", "Parse error: nesting deeper than 1000 levels"},
		{"100,000 deep object", strings.Repeat(`{"a":`, 100_000), mcpParseError, "null", "Parse error: nesting deeper than 1000 levels"},
		{"deep and unclosed", strings.Repeat("[", 100_000), mcpParseError, "null", "Parse error: nesting deeper than 1000 levels"},
		{"null", "null", mcpInvalidCall, "null", "Invalid Request: a message is a JSON object, not null"},
		{"a number", "42", mcpInvalidCall, "null", "Invalid Request: a message is a JSON object, not a number"},
		{"a string", `"tools/list"`, mcpInvalidCall, "null", "Invalid Request: a message is a JSON object, not a string"},
		{"a batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, mcpInvalidCall, "null", "Invalid Request: batches are not supported: send one message per line"},
		{"an empty batch", `[]`, mcpInvalidCall, "null", "Invalid Request: batches are not supported: send one message per line"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, mcpInvalidCall, "7", `Invalid Request: "jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":"seven","method":"ping"}`, mcpInvalidCall, `"seven"`, `Invalid Request: "jsonrpc" must be "2.0"`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, mcpInvalidCall, "null", "Invalid Request: id must be a string or an integer, not an object"},
		{"an array id", `{"jsonrpc":"2.0","id":[7],"method":"ping"}`, mcpInvalidCall, "null", "Invalid Request: id must be a string or an integer, not an array"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, mcpInvalidCall, "null", "Invalid Request: id must be a string or an integer, not a boolean"},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, mcpInvalidCall, "null", "Invalid Request: id must be a string or an integer, not null"},
		{"a fraction id", `{"jsonrpc":"2.0","id":7.5,"method":"ping"}`, mcpInvalidCall, "null", "Invalid Request: id must be a string or an integer, not a fraction"},
		{"no method", `{"jsonrpc":"2.0","id":7}`, mcpInvalidCall, "7", "Invalid Request: no method"},
		{"a number method", `{"jsonrpc":"2.0","id":7,"method":1}`, mcpInvalidCall, "7", "Invalid Request: method must be a string, not a number"},
		// JSON-RPC answers an invalid message without an id too (its own
		// example is {"jsonrpc":"2.0","method":1,"params":"bar"}): only a
		// valid notification goes unanswered.
		{"an invalid notification", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, mcpInvalidCall, "null", "Invalid Request: method must be a string, not a number"},
		{"string params", `{"jsonrpc":"2.0","id":7,"method":"ping","params":"bar"}`, mcpInvalidCall, "7", "Invalid Request: params must be an object or an array, not a string"},
		{"text not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"plan_search\",\"arguments\":{\"query\":\"caf\xe9\"}}}", mcpParseError, "null", "Parse error: text that is not UTF-8 (an invalid byte, or an escaped half of a surrogate pair such as \"\\ud800\") in params.arguments.query (byte offset 104)"},
		{"a lone surrogate", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan_search","arguments":{"query":"\ud800"}}}`, mcpParseError, "null", "Parse error: text that is not UTF-8 (an invalid byte, or an escaped half of a surrogate pair such as \"\\ud800\") in params.arguments.query (byte offset 106)"},
		{"over the cap", oversized, mcpInvalidCall, "7", fmt.Sprintf("message of %d bytes refused: this server reads at most 1048576 bytes (1 MiB) per message", len(oversized)+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			byID, errOut, err := mcpExchange(t, mcpInitialize+tc.line+"\n"+mcpToolsList)
			assert.NoError(t, err, errOut)
			refused := byID[tc.wantID]
			if assert.Len(t, refused, 1, "one answer to the bad line") && assert.NotNil(t, refused[0].Error) {
				assert.Equal(t, tc.wantCode, refused[0].Error.Code)
				assert.Equal(t, tc.wantText, refused[0].Error.Message)
			}
			listed := byID["2"]
			if assert.Len(t, listed, 1, "tools/list is answered") {
				assert.Nil(t, listed[0].Error)
				assert.Contains(t, string(listed[0].Result), `"plan_search"`)
			}
			assert.Len(t, byID, 3, "initialize, the bad line and tools/list, nothing else: %v", byID)
		})
	}
}

// TestMCPAnswersBeforeExit: a client that writes its requests and closes
// its end gets every answer before Serve returns nil; a valid
// notification and a client's response are read and never answered; blank
// lines and CRLF endings are no messages.
func TestMCPAnswersBeforeExit(t *testing.T) {
	tests := []struct {
		name, stdin string
		wantIDs     []string
	}{
		{"one request", mcpInitialize + mcpToolsList, []string{"1", "2"}},
		{"no newline at the end", mcpInitialize + strings.TrimSuffix(mcpToolsList, "\n"), []string{"1", "2"}},
		{"a tool call", mcpInitialize + `{"jsonrpc":"2.0","id":"plan","method":"tools/call","params":{"name":"plan_search","arguments":{"query":"q"}}}` + "\n", []string{"1", `"plan"`}},
		{"several", mcpInitialize + mcpToolsList +
			`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}` + "\n" +
			`{"jsonrpc":"2.0","id":99,"result":{}}` + "\n" +
			"\n   \n" +
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plan_search","arguments":{"query":"q"}}}` + "\r\n",
			[]string{"1", "2", "3", "4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			byID, errOut, err := mcpExchange(t, tc.stdin)
			assert.NoError(t, err, errOut)
			var ids []string
			for id, rs := range byID {
				ids = append(ids, id)
				assert.Len(t, rs, 1, id)
				assert.Nil(t, rs[0].Error, id)
			}
			assert.ElementsMatch(t, tc.wantIDs, ids)
		})
	}
}

// TestMCPDeepLineCostsNoStack: a line nested 100,000 deep is refused by a
// count, not a stack per level: what it costs does not grow with the depth
// (encoding/json's scanner would hold 8 bytes a level, 800 KB here).
func TestMCPDeepLineCostsNoStack(t *testing.T) {
	for _, line := range []string{
		strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000),
		strings.Repeat(`{"a":`, 100_000),
	} {
		data := []byte(line)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, r := validateMessage(data)
		runtime.ReadMemStats(&after)
		require.NotNil(t, r)
		assert.Equal(t, mcpParseError, r.code)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<10), "bytes allocated")
	}
}
