package strictjson_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

func TestCheck(t *testing.T) {
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
		{"odd key quoted in the path", `{"a b":{"k":1,"k":2}}`, `duplicate key "k" in ["a b"] (byte offset 17)`},
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

func TestCheckPassesSyntaxErrorsThrough(t *testing.T) {
	for _, data := range []string{``, `{`, `{"a":}`, `[1,]`, `nul`} {
		err := strictjson.Check([]byte(data))
		require.Error(t, err, data)
		assert.Error(t, json.Unmarshal([]byte(data), new(any)), "encoding/json agrees %q is invalid", data)
	}
}

// FuzzCheck holds Check to encoding/json: what Check accepts, json accepts,
// and re-encoding what json read changes nothing Check can see.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1}}`, `[{"a":1,"A":2}]`, ` "x" `, `{"a":{"b":[]}} 1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data) != nil {
			return
		}
		// Numbers stay json.Number: a float64 would refuse 2e400, which is
		// valid JSON.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("Check accepted %q that encoding/json rejects: %v", data, err)
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("re-encode %q: %v", data, err)
		}
		if err := strictjson.Check(again); err != nil {
			t.Fatalf("re-encoded %q fails Check: %v", again, err)
		}
	})
}
