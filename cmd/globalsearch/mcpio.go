package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// maxMCPMessageBytes is the longest JSON-RPC message (one line) mcp reads
// (docs/contract.md#body-cap). A tool call is a request: under 50 KB at its
// largest, every character escaped; 1 MiB leaves a client's other messages
// room while a runaway line costs at most that much memory.
const maxMCPMessageBytes = 1 << 20

// lockedWriter writes each message whole: the SDK writes one message per
// Write, and messageCap answers a refused message in between.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// messageCap passes through the lines of r of at most max bytes. A longer
// line is read to its end without being kept, and answered with a
// JSON-RPC error (invalid request, the message's id when its first max
// bytes name one), so the client hears why and the server serves on.
type messageCap struct {
	r       *bufio.Reader
	out     io.Writer
	max     int
	pending []byte // the rest of the line being passed on
	err     error  // the reader's error, once the lines before it are passed
}

func (c *messageCap) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		line, n, err := c.readLine()
		c.err = err
		if n > c.max {
			if werr := c.refuse(line, n); werr != nil {
				return 0, werr
			}
			continue
		}
		c.pending = line
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// readLine reads one line, newline included, keeping at most max+1 bytes
// of it; n is its whole length.
func (c *messageCap) readLine() (line []byte, n int, err error) {
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

func (c *messageCap) refuse(start []byte, n int) error {
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: messageID(start)}
	resp.Error.Code = -32600 // JSON-RPC's invalid request
	resp.Error.Message = fmt.Sprintf("message of %d bytes refused: this server reads at most %d bytes (1 MiB) per message", n, c.max)
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
