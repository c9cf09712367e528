package indexfile_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
)

func TestGraphRoundTrips(t *testing.T) {
	want := indexfiletest.Graph()
	var buf bytes.Buffer
	require.NoError(t, indexfile.Write(&buf, want))
	got, err := indexfile.Parse(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, want, got)

	plain := indexfiletest.Small()
	buf.Reset()
	require.NoError(t, indexfile.Write(&buf, plain))
	assert.NotContains(t, buf.String(), "entities", "a file without a graph is the file it always was")
	assert.NotContains(t, buf.String(), "textUnitId")
}

func TestGraphRecordsAreCheckedNamingTheRecord(t *testing.T) {
	const head = `{"summaries":[{"id":"a","level":0,"summary":"s"}],`
	tests := []struct {
		name, data, want string
	}{
		{"an entity without a title", head + `"entities":[{"id":"e1","communityIds":[]}]}`, `entities[0] (id e1): field "title" is required`},
		{"an entity's unknown field", head + `"entities":[{"id":"e1","title":"T","rank":1}]}`, `entities[0] (id e1): json: unknown field "rank"`},
		{"an entity that is no object", head + `"entities":[1]}`, `entities[0]: an entity must be a JSON object, not a number`},
		{"a relationship without a target", head + `"relationships":[{"id":"r1","source":"A"}]}`, `relationships[0] (id r1): fields "source" and "target" are required`},
		{"a relationship weight as text", head + `"relationships":[{"id":"r1","source":"A","target":"B","weight":"2"}]}`, `relationships[0] (id r1): field "weight" must be a number, not a JSON string`},
		{"an entity over the bound", head + `"entities":[{"id":"e1","title":"T","description":"` + strings.Repeat("x", globalsearch.MaxGraphRecordBytes) + `"}]}`, "an entity or relationship holds at most 32768"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := indexfile.Parse([]byte(tt.data))
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
