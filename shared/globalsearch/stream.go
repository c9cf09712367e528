package globalsearch

import (
	"context"
	"sync"
	"unicode"
	"unicode/utf8"
)

// StreamingModel is a Model that can also pass on its reply while it
// writes it (docs/contract.md#answer-stream). Only the final reduce call
// of a run streams, and only when its context carries an AnswerSink: map
// and rating calls are never streamed.
type StreamingModel interface {
	Model
	// CompleteStream is Complete that passes each piece of the reply's
	// text to onText, in order, as it arrives. The response is Complete's:
	// its Text the whole reply, which the engine validates as it would
	// Complete's. onText is called by one goroutine at a time and not
	// after CompleteStream returns.
	CompleteStream(ctx context.Context, req ModelRequest, onText func(string)) (ModelResponse, error)
}

// AnswerSink receives the final answer of a run while the reduce model
// writes it: the text of the reply's answer field, decoded from its JSON,
// in pieces (docs/contract.md#answer-stream). It only shows the answer
// early: the result holds the answer as the engine validated it.
type AnswerSink interface {
	// AnswerText is the next piece of the answer that reduce attempt
	// attempt (counting from 1) of queryID writes; a piece of a newer
	// attempt voids what the attempts before it wrote.
	AnswerText(queryID string, attempt int, text string)
}

type answerSinkKey struct{}

// WithAnswerSink is ctx with sink: the final reduce call of every search
// run under it streams its answer to sink when the reduce model can.
func WithAnswerSink(ctx context.Context, sink AnswerSink) context.Context {
	return context.WithValue(ctx, answerSinkKey{}, sink)
}

// completeReduce is the final reduce call of a run: streamed to the
// context's AnswerSink when there is one and the reduce model can stream,
// else Complete as before. Either way the response is the whole reply.
func (e *Engine) completeReduce(ctx context.Context, queryID string, attempt int, req ModelRequest) (ModelResponse, error) {
	m := e.reduceModel()
	sink, _ := ctx.Value(answerSinkKey{}).(AnswerSink)
	sm, ok := m.(StreamingModel)
	if sink == nil || !ok {
		return m.Complete(ctx, req)
	}
	var dec AnswerDecoder
	return sm.CompleteStream(ctx, req, func(piece string) {
		if text := dec.Write(piece); text != "" {
			sink.AnswerText(queryID, attempt, text)
		}
	})
}

// CompleteStream is Complete's bound on a streamed call: the pieces reach
// onText until the call returns, never after (a late piece of an abandoned
// call is dropped). A model that cannot stream answers whole, with no piece.
func (m TimeoutModel) CompleteStream(ctx context.Context, req ModelRequest, onText func(string)) (ModelResponse, error) {
	sm, ok := m.Model.(StreamingModel)
	if !ok {
		return m.Complete(ctx, req)
	}
	var (
		mu   sync.Mutex
		done bool
	)
	guarded := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			onText(s)
		}
	}
	defer func() {
		mu.Lock()
		done = true
		mu.Unlock()
	}()
	bounded := TimeoutModel{Model: streamedModel{StreamingModel: sm, onText: guarded}, Name: m.Name, Timeout: m.Timeout}
	return bounded.Complete(ctx, req)
}

// streamedModel is a streaming model whose Complete streams to onText, so
// that TimeoutModel bounds a streamed call as it bounds any other.
type streamedModel struct {
	StreamingModel
	onText func(string)
}

func (s streamedModel) Complete(ctx context.Context, req ModelRequest) (ModelResponse, error) {
	return s.CompleteStream(ctx, req, s.onText)
}

// AnswerDecoder reads the answer field of a reduce reply (docs/contract.md#reduce-call,
// {"answer": "…"}) from the reply's pieces as they arrive, and returns the
// field's text decoded as each piece completes more of it. Text outside
// the object (a code fence, a preamble) and every other field are skipped;
// leading blanks are left out, as the validated answer trims them. The
// zero value is ready for a reply's first piece.
type AnswerDecoder struct {
	state   decodeState
	depth   int
	key     []byte // the depth-1 key being read
	lastKey string
	keyNext bool   // a depth-1 string now would be a key
	escape  []byte // an escape sequence being read, from its backslash
	high    rune   // a high surrogate waiting for its low half
	pending []byte // decoded bytes not yet a whole UTF-8 sequence
	buf     []byte // Write's buffer, kept for the next piece
	started bool   // the answer's first non-blank was returned
}

type decodeState int

const (
	seekValue   decodeState = iota // structure, outside strings
	inKey                          // a depth-1 key
	inString                       // a string skipped
	afterColon                     // the answer key's colon read: its value next
	inAnswer                       // the answer's string
	answerEnded                    // nothing more to return
)

// Write takes the reply's next piece and returns the answer text it
// completes ("" when none).
func (d *AnswerDecoder) Write(piece string) string {
	// One buffer for every piece: a reply arrives in hundreds of them.
	out := append(d.buf[:0], d.pending...)
	for i := 0; i < len(piece); i++ {
		out = d.step(out, piece[i])
	}
	d.buf = out
	return d.flush(out)
}

func (d *AnswerDecoder) step(out []byte, c byte) []byte {
	switch d.state {
	case seekValue:
		d.structure(c)
	case inKey, inString:
		d.skipString(c)
	case afterColon:
		switch {
		case c == '"':
			d.state = inAnswer
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			d.state = answerEnded // not a string: the engine refuses it
		}
	case inAnswer:
		return d.answerByte(out, c)
	}
	return out
}

// structure reads one byte between strings: nesting, and at depth 1 which
// string is a key and whether the answer's value comes next.
func (d *AnswerDecoder) structure(c byte) {
	switch c {
	case '{', '[':
		d.depth++
		d.keyNext = c == '{' && d.depth == 1
	case '}', ']':
		d.depth = max(d.depth-1, 0)
	case ',':
		d.keyNext = d.depth == 1
	case ':':
		if d.depth == 1 && d.lastKey == "answer" {
			d.state = afterColon
		}
		d.lastKey = ""
	case '"':
		if d.depth == 1 && d.keyNext {
			d.state, d.key, d.keyNext = inKey, d.key[:0], false
		} else {
			d.state = inString
		}
	}
}

// skipString reads one byte of a key (kept) or of a string skipped.
func (d *AnswerDecoder) skipString(c byte) {
	if len(d.escape) > 0 {
		d.escape = d.escape[:0]
		if d.state == inKey {
			d.key = append(d.key, c)
		}
		return
	}
	switch {
	case c == '\\':
		d.escape = append(d.escape, c)
	case c == '"':
		if d.state == inKey {
			d.lastKey = string(d.key)
		}
		d.state = seekValue
	case d.state == inKey:
		d.key = append(d.key, c)
	}
}

// answerByte decodes one byte of the answer's JSON string.
func (d *AnswerDecoder) answerByte(out []byte, c byte) []byte {
	if len(d.escape) == 0 {
		switch c {
		case '\\':
			d.escape = append(d.escape, c)
			return out
		case '"':
			d.state = answerEnded
			return d.endSurrogate(out)
		}
		return append(d.endSurrogate(out), c)
	}
	d.escape = append(d.escape, c)
	if d.escape[1] == 'u' {
		if len(d.escape) < 6 {
			return out
		}
		r := hexRune(d.escape[2:6])
		d.escape = d.escape[:0]
		return d.unicodeEscape(out, r)
	}
	d.escape = d.escape[:0]
	if v, ok := jsonEscapes[c]; ok {
		return append(d.endSurrogate(out), v)
	}
	return append(d.endSurrogate(out), string(utf8.RuneError)...)
}

// unicodeEscape appends a \u escape's rune, joining a surrogate pair.
func (d *AnswerDecoder) unicodeEscape(out []byte, r rune) []byte {
	switch {
	case r >= 0xD800 && r < 0xDC00:
		out = d.endSurrogate(out)
		d.high = r
		return out
	case r >= 0xDC00 && r < 0xE000 && d.high != 0:
		joined := ((d.high - 0xD800) << 10) + (r - 0xDC00) + 0x10000
		d.high = 0
		return utf8.AppendRune(out, joined)
	}
	return utf8.AppendRune(d.endSurrogate(out), r)
}

// endSurrogate appends a high surrogate no low half followed, as
// encoding/json reads it: the replacement character.
func (d *AnswerDecoder) endSurrogate(out []byte) []byte {
	if d.high == 0 {
		return out
	}
	d.high = 0
	return utf8.AppendRune(out, utf8.RuneError)
}

// jsonEscapes are JSON's one-letter escapes and what they stand for.
var jsonEscapes = map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', '/': '/', '\\': '\\', '"': '"'}

func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return utf8.RuneError
		}
	}
	return r
}

// flush returns the whole UTF-8 sequences decoded so far, keeping a
// sequence a piece cut for the next, and leaves out the answer's leading
// blanks.
func (d *AnswerDecoder) flush(buf []byte) string {
	cut := len(buf)
	for back := 1; back <= utf8.UTFMax && back <= len(buf); back++ {
		if b := buf[len(buf)-back]; utf8.RuneStart(b) {
			if !utf8.FullRune(buf[len(buf)-back:]) && d.state == inAnswer {
				cut = len(buf) - back
			}
			break
		}
	}
	text := string(buf[:cut])
	d.pending = append(d.pending[:0], buf[cut:]...)
	if !d.started {
		text = trimLeadingBlanks(text)
		d.started = text != ""
	}
	return text
}

func trimLeadingBlanks(s string) string {
	for i, r := range s {
		if !unicode.IsSpace(r) && r != '\uFEFF' {
			return s[i:]
		}
	}
	return ""
}
