package strictjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

func TestCheck(t *testing.T) {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name, data, want string
	}{
		{"object", `{"a":1,"b":[1,{"a":2}],"c":{"a":3}}`, ""},
		{"scalar with space", " 5 \n", ""},
		{"same key in sibling objects", `[{"id":"a"},{"id":"b"}]`, ""},
		{"trailing brace", `{"a":1}}`, `unexpected '}' after the JSON value at byte offset 7`},
		{"trailing bracket", `[1]]`, `unexpected ']' after the JSON value at byte offset 3`},
		{"second value", `{} {}`, `unexpected '{' after the JSON value at byte offset 3`},
		{"duplicate top-level key", `{"query":"a","query":"b"}`, `duplicate key "query" at byte offset 20`},
		{"duplicate nested key names the record", `{"summaries":[{"id":"a"},{"id":"b","id":"c"}]}`, `duplicate key "id" in summaries[1] (byte offset 39)`},
		{"keys differing in case fill one struct field", `{"x":{"id":"a","ID":"b"}}`, `duplicate key "ID" in x (byte offset 19)`},
		// encoding/json folds beyond ASCII: U+017F (long s) fills the
		// field "summaries", U+212A (Kelvin sign) the field "k".
		{"long s folds to s", `{"summaries":[],"ſummaries":[]}`, `duplicate key "ſummaries" at byte offset 28`},
		{"Kelvin sign folds to k", `{"k":1,"\u212a":2}`, "duplicate key \"\u212a\" at byte offset 15"},
		// ...but not as strings.ToUpper(strings.ToLower(k)) would: encoding/json
		// fills different fields from "I" and U+0130.
		{"dotted capital I is not I", `{"I":1,"İ":2}`, ""},
		{"odd key quoted in the path", `{"a b":{"k":1,"k":2}}`, `duplicate key "k" in ["a b"] (byte offset 17)`},
		{"long key cut in the message", `{"` + strings.Repeat("k", 100) + `":1,"` + strings.Repeat("K", 100) + `":2}`,
			`duplicate key "` + strings.Repeat("K", 64) + `"… at byte offset 208`},
		{"nesting at the limit", deep(strictjson.MaxDepth), ""},
		{"nesting past the limit", deep(strictjson.MaxDepth + 1),
			`nesting deeper than 64 levels in ` + strings.TrimSuffix(strings.Repeat("a.", 64), ".") + ` (byte offset 321)`},
		{"arrays past the limit", strings.Repeat("[", 65) + strings.Repeat("]", 65), `nesting deeper than 64 levels in ` + strings.Repeat("[0]", 64) + ` (byte offset 65)`},
		{"byte order mark", "\ufeff{}", `JSON does not allow a UTF-8 byte order mark (U+FEFF) at byte offset 0`},
		{"NaN names the field", `{"a":{"b":NaN}}`, `invalid character 'N' looking for beginning of value in a.b (byte offset 10)`},
		{"bare NaN", `NaN`, `invalid character 'N' looking for beginning of value at byte offset 0`},
		{"cut short names the element", `{"a":[1,`, `unexpected end of JSON input in a[1] (byte offset 8)`},
		{"empty", ``, `no JSON value at byte offset 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := strictjson.Check([]byte(tc.data))
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var se *strictjson.Error
			assert.ErrorAs(t, err, &se)
		})
	}
}

// docs/contract.md#strict-json: a string that is not UTF-8, in its bytes or
// in its escapes, is refused where it is; encoding/json alone would read
// it as U+FFFD. A surrogate pair and an escaped backslash before "ud800"
// are UTF-8 text.
func TestCheckRefusesTextThatIsNotUTF8(t *testing.T) {
	const msg = strictjson.NotUTF8
	tests := []struct {
		name, data, want string
	}{
		{"invalid byte in a value", "{\"query\":\"x\xff\"}", msg + " in query (byte offset 13)"},
		{"truncated sequence in a list", "{\"a\":[\"ok\",\"\xe4\xb8\"]}", msg + " in a[1] (byte offset 15)"},
		{"invalid byte in a key", "{\"summaries\":[{\"i\xffd\":1}]}", msg + " in summaries[0] (byte offset 20)"},
		{"a top-level string", "\"\xc0\"", msg + " at byte offset 3"},
		{"lone high surrogate", `{"q":"\ud800"}`, msg + " in q (byte offset 13)"},
		{"high surrogate then text", `{"q":"\ud800x"}`, msg + " in q (byte offset 14)"},
		{"high surrogate then no low one", `{"q":"\ud83d\u0041"}`, msg + " in q (byte offset 19)"},
		{"low surrogate first", `{"q":"\udc00\ud800"}`, msg + " in q (byte offset 19)"},
		{"surrogate pair", `{"q":"\ud83d\ude00"}`, ""},
		{"surrogate pair in upper case", `{"q":"\uD83D\uDE00 x"}`, ""},
		{"escaped backslash before ud800", `{"q":"\\ud800"}`, ""},
		{"valid multibyte text", `{"q":"中文 café 😀"}`, ""},
		{"invalid byte beside a valid escape", "{\"q\":\"\\u4e2d\",\"r\":\"\xfe\"}", msg + " in r (byte offset 21)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := strictjson.Check([]byte(tc.data))
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, strictjson.ErrNotUTF8)
		})
	}
}

// TestInt: one integer rule for every strict input (docs/contract.md#strict-json):
// digits only, as encoding/json reads an index file's integers.
func TestInt(t *testing.T) {
	tests := []struct {
		raw  string
		want int64
		ok   bool
	}{
		{"100", 100, true},
		{" 7 ", 7, true},
		{"-0", 0, true},
		{"-12", -12, true},
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false},
		{"1e2", 0, false},
		{"1.0", 0, false},
		{"100.0", 0, false},
		{"2.5", 0, false},
		{`"5"`, 0, false},
		{"null", 0, false},
		{"true", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			n, ok := strictjson.Int([]byte(tc.raw))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, n)
		})
	}
}

func TestCheckWrapsSyntaxErrors(t *testing.T) {
	for _, data := range []string{``, `{`, `{"a":}`, `[1,]`, `nul`, `{"a" 1}`} {
		err := strictjson.Check([]byte(data))
		require.Error(t, err, data)
		assert.Error(t, json.Unmarshal([]byte(data), new(any)), "encoding/json agrees %q is invalid", data)
		var se *strictjson.Error
		require.ErrorAs(t, err, &se, data)
		var syntax *json.SyntaxError
		assert.True(t, errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF), "%q wraps encoding/json's error: %v", data, err)
	}
}

// TestCheckFoldsAsEncodingJSON holds the duplicate-key rule to encoding/json
// itself: two keys are duplicates exactly when a struct field tagged with
// one is filled by the other.
func TestCheckFoldsAsEncodingJSON(t *testing.T) {
	var runes []rune
	for r := rune(0x41); r < 0x2200; r++ {
		if unicode.IsLetter(r) {
			runes = append(runes, r)
		}
	}
	runes = append(runes, 0x212a, 0x212b, 0x1e9e, 0xfb05, 0x10400, 0x10428)
	checked := 0
	for _, a := range runes {
		// Only a rune's case relatives can fill its field: comparing each
		// with its orbit and its upper, lower and title case covers every
		// pair encoding/json could merge without comparing all pairs.
		others := []rune{unicode.ToUpper(a), unicode.ToLower(a), unicode.ToTitle(a), unicode.ToUpper(unicode.ToLower(a))}
		for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
			others = append(others, r)
		}
		for _, b := range others {
			if a == b {
				continue
			}
			ka, kb := "x"+string(a), "x"+string(b)
			want := fillsField(t, ka, kb)
			err := strictjson.Check([]byte(`{` + strconv.Quote(ka) + `:1,` + strconv.Quote(kb) + `:2}`))
			assert.Equal(t, want, err != nil, "%q beside %q: encoding/json merges them: %v; Check: %v", ka, kb, want, err)
			checked++
		}
	}
	require.Greater(t, checked, 1000)
}

// fillsField reports whether encoding/json fills a field tagged tag from
// the key key.
func fillsField(t testing.TB, tag, key string) bool {
	t.Helper()
	typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[*int](), Tag: reflect.StructTag(`json:` + strconv.Quote(tag))}})
	v := reflect.New(typ)
	require.NoError(t, json.Unmarshal([]byte(`{`+strconv.Quote(key)+`:1}`), v.Interface()))
	return !v.Elem().Field(0).IsNil()
}

// validTag is encoding/json's rule for a tag name it honours.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// ref is the reference Check holds to in FuzzCheck: a recursive walk of
// valid JSON that records the deepest nesting and every pair of keys of one
// object.
type ref struct {
	depth int
	pairs [][2]string
}

func (r *ref) walk(dec *json.Decoder, level int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	r.depth = max(r.depth, level+1)
	var keys []string
	for dec.More() {
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			for _, prev := range keys {
				r.pairs = append(r.pairs, [2]string{prev, k.(string)})
			}
			keys = append(keys, k.(string))
		}
		if err := r.walk(dec, level+1); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// FuzzCheck holds Check to encoding/json and to a reference walk: every
// error is an *Error; what encoding/json refuses, Check refuses; valid
// JSON is refused exactly when it nests deeper than MaxDepth or one of its
// objects has two keys that fill one struct field; and what Check accepts
// decodes and re-encodes to something Check accepts.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1}}`, `[{"a":1,"A":2}]`, ` "x" `, `{"a":{"b":[]}} 1`, `{"s":1,"ſ":2}`, "\ufeff[]", `[[[[[[]]]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := strictjson.Check(data)
		if err != nil {
			var se *strictjson.Error
			require.ErrorAs(t, err, &se, "Check's error is typed")
		}
		if !json.Valid(data) {
			require.Error(t, err, "Check accepted %q, which encoding/json refuses", data)
			return
		}
		var r ref
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		require.NoError(t, r.walk(dec, 0))
		// The reference decides where it can: keys that are no valid tag
		// cannot be asked of encoding/json.
		dup, known := false, true
		for _, p := range r.pairs {
			if p[0] == p[1] {
				dup = true
				continue
			}
			if !validTag(p[0]) || !validTag(p[1]) {
				known = false
				continue
			}
			if fillsField(t, p[0], p[1]) || fillsField(t, p[1], p[0]) {
				dup = true
			}
		}
		switch {
		case r.depth > strictjson.MaxDepth || dup:
			require.Error(t, err, "%q nests %d levels, duplicate keys: %v", data, r.depth, dup)
		case known:
			require.NoError(t, err, "%q is valid, %d levels deep, no duplicate keys", data, r.depth)
		}
		if err != nil {
			return
		}
		// Numbers stay json.Number: a float64 would refuse 2e400, which is
		// valid JSON.
		dec = json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		require.NoError(t, dec.Decode(&v), "Check accepted %q that encoding/json rejects", data)
		again, err := json.Marshal(v)
		require.NoError(t, err, "re-encode %q", data)
		require.NoError(t, strictjson.Check(again), "re-encoded %q fails Check", again)
	})
}

func TestCheckErrorsSayWhatBroke(t *testing.T) {
	tests := []struct {
		name, data string
		want       error
	}{
		{"duplicate", `{"a":1,"A":2}`, strictjson.ErrDuplicateKey},
		{"too deep", strings.Repeat("[", 65) + strings.Repeat("]", 65), strictjson.ErrTooDeep},
		{"trailing", `{} x`, strictjson.ErrTrailingData},
		{"byte order mark", "\ufeff{}", strictjson.ErrByteOrderMark},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorIs(t, strictjson.Check([]byte(tc.data)), tc.want)
		})
	}
}

// The index file, a request and an MCP message name a value of the wrong
// kind in the same words, from this one function.
func TestKind(t *testing.T) {
	tests := []struct{ data, want string }{
		{"", "nothing"},
		{" \n", "nothing"},
		{`{"a":1}`, "an object"},
		{"  [1]", "an array"},
		{`"x"`, "a string"},
		{"null", "null"},
		{"true", "a boolean"},
		{"false", "a boolean"},
		{"-1.5e3", "a number"},
	}
	for _, tc := range tests {
		t.Run(tc.want+" "+tc.data, func(t *testing.T) {
			assert.Equal(t, tc.want, strictjson.Kind([]byte(tc.data)))
		})
	}
}
