package indexfile_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// FuzzParse: whatever the bytes, Parse returns a File or an invalid-input
// error, never a panic; an accepted file passes Validate, and written out
// and parsed again it is the same File; it holds at least one summary.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"namespace":"n","summaries":[{"id":"c1","level":0,"parentCommunityId":"","title":"T","summary":"s"},{"id":"c2","level":1,"parentCommunityId":"c1","summary":"中文"}],"claims":[{"id":"k1","communityId":"c2","subject":"S","object":"O","description":"d","sourceChunkIds":["ch1"]}],"chunks":[{"id":"ch1","text":"t","documentId":"d1"}]}`,
		`{}`, `{"summaries":[]}}`, `{"chunks":[{"id":"x","text":"a","id":"y"}]}`, `{"claims":[{"id":"k","subject":"s","sourceChunkIds":null}]}`,
		`{"summaries":[{"ID":"a","level":0}]}`, `[]`, `{"namespace":"Bad"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := indexfile.Parse(data)
		if err != nil {
			if globalsearch.KindOf(err) != globalsearch.KindInvalidInput {
				t.Fatalf("error of kind %v, not invalid input: %v", globalsearch.KindOf(err), err)
			}
			return
		}
		if len(file.Summaries) == 0 {
			t.Fatalf("accepted %q, which holds no summaries", data)
		}
		if err := file.Records.Validate(); err != nil {
			t.Fatalf("accepted records that fail Validate: %v", err)
		}
		if !globalsearch.ValidNamespace(file.Namespace) {
			t.Fatalf("accepted namespace %q", file.Namespace)
		}
		var buf bytes.Buffer
		if err := indexfile.Write(&buf, file); err != nil {
			t.Fatalf("write: %v", err)
		}
		back, err := indexfile.Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("accepted %q, but not its own output %s: %v", data, buf.Bytes(), err)
		}
		if !reflect.DeepEqual(file, back) {
			t.Fatalf("round trip changed the file:\n%#v\n%#v", file, back)
		}
	})
}
