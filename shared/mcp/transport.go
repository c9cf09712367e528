package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// maxMessageBytes is the longest JSON-RPC message (one line) mcp reads
// (docs/contract.md#body-cap). A tool call is a request: under 50 KB at its
// largest, every character escaped; 1 MiB leaves a client's other messages
// room while a runaway line costs at most that much memory.
const maxMessageBytes = 1 << 20

// maxDepth is the deepest nesting of a message mcp passes on: the SDK's
// own decoder refuses deeper, and it would end the session where this
// reader answers and goes on (docs/contract.md#mcp-messages). A tool's
// arguments are then judged by the request's stricter limit, as a tool
// error naming the field.
const maxDepth = 1000

// maxExactID is the largest integer id that survives the SDK's reading of
// an id as a float64 and its answer as an int64 unchanged.
const maxExactID = 1 << 53

// lockedWriter writes each message whole: the SDK writes one message per
// Write, and lineReader answers a refused message in between.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineReader passes the SDK one line of r at a time, and only a line that
// is one valid JSON-RPC message: the SDK's stream decoder ends the session
// on the first bad message, and would read a cut line on into the next.
// Any other line is answered here (docs/contract.md#mcp-messages) and the
// server reads on. At the end of r it waits until every request it passed
// has been answered, since the SDK cancels what is in flight once its
// reader ends, and a client that writes its requests and closes its end
// is owed their answers.
type lineReader struct {
	r      *bufio.Reader
	out    io.Writer // where refusals go: not through answered, whose ids are the SDK's
	stderr io.Writer
	max    int
	done   <-chan struct{} // the server's context: stop waiting at the end of r

	mu      sync.Mutex
	waiting map[jsonrpc.ID]struct{} // requests passed on and not yet answered
	answer  chan struct{}           // a request was answered; buffered, 1

	pending []byte // the rest of the line being passed on
	err     error  // the reader's error, once the lines before it are passed
}

func newLineReader(r io.Reader, out, stderr io.Writer, done <-chan struct{}) *lineReader {
	return &lineReader{
		r: bufio.NewReader(r), out: out, stderr: stderr, max: maxMessageBytes, done: done,
		waiting: map[jsonrpc.ID]struct{}{}, answer: make(chan struct{}, 1),
	}
}

func (c *lineReader) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.err != nil {
			if c.err == io.EOF {
				c.drain()
			}
			return 0, c.err
		}
		line, n, err := c.readLine()
		c.err = err
		if n > c.max {
			if werr := c.refuse(messageID(line), jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("message of %d bytes refused: this server reads at most %d bytes (1 MiB) per message", n, c.max)); werr != nil {
				return 0, werr
			}
			continue
		}
		msg, werr := c.check(line)
		if werr != nil {
			return 0, werr
		}
		c.pending = msg
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// drain waits until every request passed on has its answer, or the server
// stops.
func (c *lineReader) drain() {
	for {
		c.mu.Lock()
		left := len(c.waiting)
		c.mu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-c.answer:
		case <-c.done:
			return
		}
	}
}

// readLine reads one line, newline included, keeping at most max+1 bytes
// of it; n is its whole length.
func (c *lineReader) readLine() (line []byte, n int, err error) {
	for {
		chunk, err := c.r.ReadSlice('\n')
		n += len(chunk)
		if keep := c.max + 1 - len(line); keep > 0 {
			line = append(line, chunk[:min(keep, len(chunk))]...)
		}
		if err != bufio.ErrBufferFull {
			return line, n, err
		}
	}
}

// check returns line as the SDK is to read it, or nil when it is blank or
// was answered here; the error is a failed write of the answer.
func (c *lineReader) check(line []byte) ([]byte, error) {
	body := bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	id, passID, msg := validateMessage(body)
	switch {
	case msg != nil && msg.code == 0:
		fmt.Fprintf(c.stderr, "globalsearch mcp: a response left unread: %s\n", msg.text)
		return nil, nil
	case msg != nil:
		return nil, c.refuse(id, msg.code, msg.text)
	}
	if passID.IsValid() {
		c.mu.Lock()
		// A second request with an id still in flight is answered by the SDK
		// with a null id, so only the first is waited for.
		c.waiting[passID] = struct{}{}
		c.mu.Unlock()
	}
	return append(body, '\n'), nil
}

// answered is the SDK's side of the output: it notes each response the SDK
// writes, so the end of input waits for exactly those still owed.
type answered struct {
	*lineReader
	w io.Writer
}

func (a answered) Write(p []byte) (int, error) {
	if msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p)); err == nil {
		if resp, ok := msg.(*jsonrpc.Response); ok {
			a.mu.Lock()
			delete(a.waiting, resp.ID)
			a.mu.Unlock()
			select {
			case a.answer <- struct{}{}:
			default:
			}
		}
	}
	return a.w.Write(p)
}

// refusal is why a line is not passed on: code is JSON-RPC's error code,
// or 0 for a response, which is never answered.
type refusal struct {
	code int
	text string
}

// validateMessage judges one line as JSON-RPC 2.0 and MCP read it. A line
// the SDK may read gives the request id to wait for (invalid for a
// notification or a response); any other gives the refusal and the id to
// answer it with (null unless the message names a valid one).
func validateMessage(line []byte) (answerID json.RawMessage, passID jsonrpc.ID, _ *refusal) {
	null := json.RawMessage("null")
	if err := checkDepth(line, maxDepth); err != nil {
		return null, jsonrpc.ID{}, &refusal{jsonrpc.CodeParseError, "Parse error: " + err.Error()}
	}
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return null, jsonrpc.ID{}, &refusal{jsonrpc.CodeParseError, "Parse error: " + parseErrorText(err)}
	}
	// encoding/json would read a text that is not UTF-8 as U+FFFD, so a
	// query would change unseen: the one text rule of every entry point
	// (docs/contract.md#strict-json) refuses it here, before the SDK decodes.
	if err := strictjson.Check(line); errors.Is(err, strictjson.ErrNotUTF8) {
		return null, jsonrpc.ID{}, &refusal{jsonrpc.CodeParseError, "Parse error: " + err.Error()}
	}
	invalid := func(id json.RawMessage, format string, args ...any) (json.RawMessage, jsonrpc.ID, *refusal) {
		return id, jsonrpc.ID{}, &refusal{jsonrpc.CodeInvalidRequest, "Invalid Request: " + fmt.Sprintf(format, args...)}
	}
	switch kind := strictjson.Kind(raw); kind {
	case "an object":
	case "an array":
		// MCP 2025-06-18 removed JSON-RPC batches.
		return invalid(null, "batches are not supported: send one message per line")
	default:
		return invalid(null, "a message is a JSON object, not %s", kind)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return invalid(null, "%v", err)
	}
	idRaw, hasID := fields["id"]
	id := null
	if hasID {
		why := idProblem(idRaw)
		if why != "" {
			return invalid(null, "id must be a string or an integer, not %s", why)
		}
		id = idRaw
	}
	if v, ok := fields["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return invalid(id, `"jsonrpc" must be "2.0"`)
	}
	method, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if !hasMethod && (hasResult || hasError) {
		// A response is the client's answer to the server: JSON-RPC has no
		// answer to it, so one that is not valid is only logged.
		if !hasID {
			return nil, jsonrpc.ID{}, &refusal{0, "a response without an id"}
		}
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			return nil, jsonrpc.ID{}, &refusal{0, err.Error()}
		}
		return nil, jsonrpc.ID{}, nil
	}
	if !hasMethod {
		return invalid(id, "no method")
	}
	if k := strictjson.Kind(method); k != "a string" {
		return invalid(id, "method must be a string, not %s", k)
	}
	if params, ok := fields["params"]; ok {
		if k := strictjson.Kind(params); k != "an object" && k != "an array" && k != "null" {
			return invalid(id, "params must be an object or an array, not %s", k)
		}
	}
	// What the SDK cannot read ends its session, so its own decoder has
	// the last word.
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return invalid(id, "%v", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return invalid(id, "not a request")
	}
	return nil, req.ID, nil
}

// idProblem says what is wrong with a request id, or "" when it is one MCP
// allows: a string, or an integer the SDK answers unchanged. MCP, unlike
// JSON-RPC, refuses a null id.
func idProblem(id json.RawMessage) string {
	switch k := strictjson.Kind(id); k {
	case "a string":
		return ""
	case "a number":
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil || f != math.Trunc(f) {
			return "a fraction"
		}
		if math.Abs(f) > maxExactID {
			return "a number beyond ±2^53"
		}
		return ""
	default:
		return k
	}
}

// parseErrorText is encoding/json's complaint with where it is.
func parseErrorText(err error) string {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return err.Error()
	}
	if syntax.Error() == "unexpected end of JSON input" {
		return "the line ends inside a JSON value (a message is one line)"
	}
	return fmt.Sprintf("%v (at byte %d)", err, syntax.Offset)
}

// checkDepth refuses nesting deeper than max in one pass over data that
// keeps no stack: only the depth of data's brackets outside strings is
// counted, so a line of any depth costs its length and no more.
func checkDepth(data []byte, max int) error {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			if depth > max {
				return fmt.Errorf("nesting deeper than %d levels", max)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return nil
}

func (c *lineReader) refuse(id json.RawMessage, code int, message string) error {
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code = code
	resp.Error.Message = message
	data, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// messageID is the top-level "id" of a JSON-RPC message cut short, when
// its start holds it; else null, as JSON-RPC answers a request whose id
// cannot be read.
func messageID(start []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(start))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return json.RawMessage("null")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if key == "id" && len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
			return v
		}
	}
	return json.RawMessage("null")
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
