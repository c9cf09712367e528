// Package strictjson finds what encoding/json lets through but a strict
// reader must refuse: a second value (or a stray '}' or ']') after the
// first, and an object that names a key twice, where encoding/json keeps
// the last and silently drops the first. It is pure: callers decode as
// before and call Check for the rest.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Error is a place in the input that breaks strictness. Path is where it
// is, as `summaries[3]` (empty at the top level); Offset is the byte offset
// just past the offending token.
type Error struct {
	Path   string
	Offset int64
	// Key is the key named twice; empty for trailing data.
	Key string
	Msg string
}

func (e *Error) Error() string {
	where := "at byte offset " + strconv.FormatInt(e.Offset, 10)
	if e.Path != "" {
		where = "in " + e.Path + " (byte offset " + strconv.FormatInt(e.Offset, 10) + ")"
	}
	return e.Msg + " " + where
}

// frame is one open object or array.
type frame struct {
	path   string
	object bool
	keys   map[string]bool // folded keys seen, objects only
	index  int             // next element index, arrays only
	key    string          // the key whose value comes next, objects only
	isKey  bool            // the next string token is a key
}

// Check reports the first duplicate key (keys compare as encoding/json
// matches struct fields: case-insensitively) or trailing data in data, which
// must hold exactly one JSON value. A syntax error is returned as
// encoding/json reports it.
func Check(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) == 0 {
				return errors.New("no JSON value")
			}
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.isKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
			} else {
				key := tok.(string) // the decoder allows only strings here
				folded := fold(key)
				if top.keys[folded] {
					return &Error{Path: top.path, Offset: dec.InputOffset(), Key: key, Msg: fmt.Sprintf("duplicate key %q", key)}
				}
				top.keys[folded] = true
				top.key, top.isKey = key, false
				continue
			}
		} else {
			switch tok {
			case json.Delim('{'):
				stack = append(stack, &frame{path: top.child(), object: true, keys: map[string]bool{}, isKey: true})
				continue
			case json.Delim('['):
				stack = append(stack, &frame{path: top.child()})
				continue
			case json.Delim(']'):
				stack = stack[:len(stack)-1]
			default:
				top.skip()
			}
		}
		if len(stack) == 0 {
			return trailing(data, dec.InputOffset())
		}
	}
}

// child returns the path of f's next value and moves f past it; a nil f is
// the top level.
func (f *frame) child() string {
	if f == nil {
		return ""
	}
	var path string
	if f.object {
		path = join(f.path, f.key)
	} else {
		path = f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	f.skip()
	return path
}

// skip moves f past a scalar value without building its path: a file of
// many scalars costs no string per value.
func (f *frame) skip() {
	if f == nil {
		return
	}
	if f.object {
		f.isKey = true
	} else {
		f.index++
	}
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
		return &Error{Offset: int64(i), Msg: fmt.Sprintf("unexpected %q after the JSON value", r)}
	}
	return nil
}

// join extends an object path with a key, quoting keys that would not read
// as a plain name.
func join(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// fold is encoding/json's own key folding (foldName), so "id" and "ID",
// which fill the same struct field, count as the same key.
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
		b = utf8.AppendRune(b, unicode.ToUpper(unicode.ToLower(r)))
	}
	return string(b)
}
