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
	ErrNotUTF8       = errors.New("text that is not UTF-8")
)

// NotUTF8 is what Check says of a string that is not UTF-8, and what a
// caller checking a Go string by the same rule says of it.
const NotUTF8 = `text that is not UTF-8 (an invalid byte, or an escaped half of a surrogate pair such as "\ud800")`

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
// deeper than MaxDepth, a leading byte order mark, a string (key or value)
// that is not UTF-8, or trailing data in data, which must hold exactly one
// JSON value. encoding/json reads an invalid byte and an escaped half of a
// surrogate pair as U+FFFD, so two texts that differ would read as one and
// a text would change unseen (docs/contract.md#strict-json). Every error is an *Error;
// one whose input is not JSON wraps encoding/json's error and names where
// it is.
func Check(data []byte) error {
	if bytes.HasPrefix(data, bom) {
		return &Error{Msg: "JSON does not allow a UTF-8 byte order mark (U+FEFF)", Err: ErrByteOrderMark}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// Input that is UTF-8 without a surrogate escape, which is every input
	// an encoder of this project writes, has no string to look at again.
	suspect := !utf8.Valid(data) || hasSurrogateEscape(data)
	var stack []frame
	for {
		before := dec.InputOffset()
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
		if _, isString := tok.(string); isString && suspect && !validText(data[before:dec.InputOffset()]) {
			// A key is placed at the object that holds it, as valuePath does.
			return &Error{Path: valuePath(stack), Offset: dec.InputOffset(), Msg: NotUTF8, Err: ErrNotUTF8}
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

// hasSurrogateEscape reports whether data may hold an escaped surrogate
// (\uD800-\uDFFF). An escaped backslash before "ud8" is a false alarm,
// which costs only a closer look.
func hasSurrogateEscape(data []byte) bool {
	for {
		i := bytes.Index(data, []byte(`\u`))
		if i < 0 || i+3 >= len(data) {
			return false
		}
		if (data[i+2] == 'd' || data[i+2] == 'D') && bytes.IndexByte([]byte("89abcdefABCDEF"), data[i+3]) >= 0 {
			return true
		}
		data = data[i+2:]
	}
}

// validText reports whether span, a string token as the input holds it
// (with any white space, ':' or ',' before it), is UTF-8 both in its bytes
// and in its escapes: an escaped high surrogate must be followed by an
// escaped low one, and a low one never stands alone.
func validText(span []byte) bool {
	if !utf8.Valid(span) {
		return false
	}
	for i := 0; i < len(span); i++ {
		if span[i] != '\\' {
			continue
		}
		i++ // the escaped byte: a second backslash is no escape of its own
		if i >= len(span) || span[i] != 'u' {
			continue
		}
		r, ok := hex4(span[i+1:])
		if !ok {
			continue // the decoder refused it already
		}
		i += 4
		if r < 0xD800 || r > 0xDFFF {
			continue
		}
		if r >= 0xDC00 || i+6 >= len(span) || span[i+1] != '\\' || span[i+2] != 'u' {
			return false
		}
		low, ok := hex4(span[i+3:])
		if !ok || low < 0xDC00 || low > 0xDFFF {
			return false
		}
		i += 6
	}
	return true
}

// hex4 reads the four hex digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// Int reads a JSON integer by the one rule every strict input applies to an
// integer field (docs/contract.md#strict-json): digits, after a '-' for a
// negative one, as encoding/json reads a number into an int (and so into an
// index file's integer fields). 1e2, 100.0 and 2.5 are no integers, nor are
// a string, null or a number beyond int64; -0 is 0.
func Int(raw []byte) (int64, bool) {
	var n int64
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// Kind names the kind of the JSON value data holds, with its article
// ("an object", "null"), so that every message about a value of the wrong
// kind says it in the same words; data is one JSON value, leading
// whitespace allowed, and anything not recognised by its first byte is
// called a number.
func Kind(data []byte) string {
	switch s := bytes.TrimLeft(data, " \t\r\n"); {
	case len(s) == 0:
		return "nothing"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "an array"
	case s[0] == '"':
		return "a string"
	case s[0] == 'n':
		return "null"
	case s[0] == 't' || s[0] == 'f':
		return "a boolean"
	}
	return "a number"
}
