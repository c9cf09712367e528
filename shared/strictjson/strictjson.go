// Package strictjson finds what encoding/json lets through but a strict
// reader must refuse: a second value (or a stray '}' or ']') after the
// first, an object that names a key twice, where encoding/json keeps the
// last and silently drops the first, nesting deeper than MaxDepth, and a
// leading byte order mark. It is pure: callers decode as before and call
// Check for the rest.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting Check accepts: objects and arrays open at
// once (docs/contract.md#strict-json). The deepest real input, an index file,
// nests 3 (file, list, record) and a request 1; encoding/json's own limit
// is 10,000, and an input that deep is an attack, not data.
const MaxDepth = 64

// maxEcho bounds a key as an error message quotes it (Quote).
const maxEcho = 64

// What an Error is, for errors.Is; an input that is not JSON wraps
// encoding/json's own error instead.
var (
	ErrDuplicateKey  = errors.New("duplicate key")
	ErrTooDeep       = errors.New("nesting too deep")
	ErrTrailingData  = errors.New("data after the JSON value")
	ErrByteOrderMark = errors.New("byte order mark")
)

// Error is a place in the input that breaks strictness. Path is where it
// is, as `summaries[3]` (empty at the top level); Offset is the byte offset
// just past the offending token.
type Error struct {
	Path   string
	Offset int64
	// Key is the key named twice; empty for any other error.
	Key string
	Msg string
	// Err is what broke: one of the Err values above, or encoding/json's
	// error when the input is not JSON (a *json.SyntaxError or
	// io.ErrUnexpectedEOF).
	Err error
}

func (e *Error) Error() string {
	where := "at byte offset " + strconv.FormatInt(e.Offset, 10)
	if e.Path != "" {
		where = "in " + e.Path + " (byte offset " + strconv.FormatInt(e.Offset, 10) + ")"
	}
	return e.Msg + " " + where
}

// Unwrap is encoding/json's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// frame is one open object or array. It holds no path: a path is built
// only for an error, so memory grows with the depth, not its square.
type frame struct {
	object bool
	keys   map[string]struct{} // folded keys seen, objects only
	index  int                 // next element index, arrays only
	key    string              // the key whose value comes next, objects only
	isKey  bool                // the next string token is a key
}

// bom is U+FEFF in UTF-8, which some Windows editors write at the start
// of a file.
var bom = []byte("\xef\xbb\xbf")

// Check reports the first duplicate key (keys compare as encoding/json
// matches struct fields: case-insensitively, with its own folding), nesting
// deeper than MaxDepth, a leading byte order mark or trailing data in
// data, which must hold exactly one JSON value. Every error is an *Error;
// one whose input is not JSON wraps encoding/json's error and names where
// it is.
func Check(data []byte) error {
	if bytes.HasPrefix(data, bom) {
		return &Error{Msg: "JSON does not allow a UTF-8 byte order mark (U+FEFF)", Err: ErrByteOrderMark}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) == 0 {
				return &Error{Msg: "no JSON value", Err: io.ErrUnexpectedEOF}
			}
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			msg := err.Error()
			if err == io.ErrUnexpectedEOF {
				msg = "unexpected end of JSON input"
			}
			return &Error{Path: valuePath(stack), Offset: dec.InputOffset(), Msg: msg, Err: err}
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.object && top.isKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
			} else {
				key := tok.(string) // the decoder allows only strings here
				folded := fold(key)
				if _, seen := top.keys[folded]; seen {
					return &Error{Path: containerPath(stack), Offset: dec.InputOffset(), Key: key, Msg: "duplicate key " + Quote(key), Err: ErrDuplicateKey}
				}
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				top.keys[folded] = struct{}{}
				top.key, top.isKey = key, false
				continue
			}
		} else {
			switch tok {
			case json.Delim('{'), json.Delim('['):
				if len(stack) == MaxDepth {
					return &Error{Path: valuePath(stack), Offset: dec.InputOffset(), Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth), Err: ErrTooDeep}
				}
				stack = append(stack, frame{object: tok == json.Delim('{'), isKey: true})
				continue
			case json.Delim(']'):
				stack = stack[:len(stack)-1]
			}
		}
		if len(stack) == 0 {
			return trailing(data, dec.InputOffset())
		}
		// The container on top has read one more value.
		top = &stack[len(stack)-1]
		if top.object {
			top.isKey = true
		} else {
			top.index++
		}
	}
}

// containerPath is the path of the innermost open container.
func containerPath(stack []frame) string {
	var b strings.Builder
	for i := 1; i < len(stack); i++ {
		stack[i-1].appendPosition(&b)
	}
	return b.String()
}

// valuePath is the path of the value the innermost container reads next
// (the container itself while it expects a key).
func valuePath(stack []frame) string {
	if len(stack) == 0 {
		return ""
	}
	var b strings.Builder
	for i := range stack {
		if i == len(stack)-1 && stack[i].object && stack[i].isKey {
			break
		}
		stack[i].appendPosition(&b)
	}
	return b.String()
}

// appendPosition writes where f's current value sits: `.key`, `["odd
// key"]` or `[3]`.
func (f *frame) appendPosition(b *strings.Builder) {
	if !f.object {
		b.WriteString("[" + strconv.Itoa(f.index) + "]")
		return
	}
	plain := f.key != "" && len(f.key) <= maxEcho
	for _, r := range f.key {
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		b.WriteString("[" + Quote(f.key) + "]")
	case b.Len() == 0:
		b.WriteString(f.key)
	default:
		b.WriteString("." + f.key)
	}
}

// Quote quotes key for a message, cut to its first 64 bytes: a key may be
// a megabyte long, and its start is enough to find it.
func Quote(key string) string {
	if len(key) <= maxEcho {
		return strconv.Quote(key)
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return strconv.Quote(key[:cut]) + "…"
}

// trailing reports anything but white space after the value, which ends
// at offset.
func trailing(data []byte, offset int64) error {
	for i := int(offset); i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		r, _ := utf8.DecodeRune(data[i:])
		return &Error{Offset: int64(i), Msg: fmt.Sprintf("unexpected %q after the JSON value", r), Err: ErrTrailingData}
	}
	return nil
}

// fold is encoding/json's own key folding (foldName: ASCII upper case, and
// every other rune the smallest of its simple case-folding orbit), so "id"
// and "ID", or "s" and "ſ", which fill the same struct field, count as the
// same key.
func fold(key string) string {
	b := make([]byte, 0, len(key))
	for _, r := range key {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		b = utf8.AppendRune(b, foldRune(r))
	}
	return string(b)
}

// foldRune is the smallest rune of r's simple folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
