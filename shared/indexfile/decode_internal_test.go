package indexfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeCases are files at the edges of what the one-value decode accepted.
var decodeCases = []string{
	`{"namespace":"n","summaries":[{"id":"c1","level":0,"parentCommunityId":"","title":"T","summary":"s"}],"claims":[{"id":"k1","communityId":"c1","subject":"S","description":"d","sourceChunkIds":["ch1"]}],"chunks":[{"id":"ch1","text":"t"}]}`,
	`{}`, `null`, `[]`, `"x"`, `{"summaries":null,"claims":[],"chunks":[null]}`, `{"namespace":null}`,
	`{"Summaries":[{"id":"a"}],"CLAIMS":[],"ſummaries":[]}`, `{"summaries":{}}`, `{"summaries":"s"}`,
	`{"summaries":[{"id":"a","extra":1}]}`, `{"extra":[]}`, `{"summaries":[{"id":1}]}`, `{"summaries":[1]}`,
	`{"summaries":[] "claims":[]}`, `{"summaries":[{"id":"a"},]}`, `{"summaries":[]}}`, `{"summaries":[]`, `{`, ``,
	`{"summaries":[],"summaries":[{"id":"b"}]}`, `{"chunks":[{"id":"x","text":"a","id":"y"}]}`,
}

// decodeTyped must accept exactly what one strictDecode of the whole file
// accepted, with the same records, or the index file would load otherwise
// than it did.
func assertDecodesAsOneValue(t *testing.T, data []byte) {
	t.Helper()
	var want, got typedFile
	wantErr := strictDecode(data, &want)
	gotErr := decodeTyped(data, &got)
	if !assert.Equal(t, wantErr == nil, gotErr == nil, "accepted %q: one value %v, record by record %v", data, wantErr, gotErr) {
		return
	}
	if wantErr == nil {
		assert.Equal(t, want, got, "decoded %q", data)
	}
}

func TestDecodeTypedDecodesAsOneValue(t *testing.T) {
	for _, c := range decodeCases {
		t.Run(c, func(t *testing.T) { assertDecodesAsOneValue(t, []byte(c)) })
	}
	sample, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample-index.json"))
	require.NoError(t, err)
	assertDecodesAsOneValue(t, sample)
}

func FuzzDecodeTyped(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(assertDecodesAsOneValue)
}
