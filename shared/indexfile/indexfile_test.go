package indexfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

const noSummaries = `index file holds no summaries: an index needs at least one (to empty a namespace of a table, use delete-namespace)`

func TestParseRejectsMalformedFilesNamingRecordAndField(t *testing.T) {
	huge := strings.Repeat("k", 1<<20)
	shown := huge[:globalsearch.MaxEchoedRunes]
	const notAnObject = `index file: an index file is a JSON object with "summaries" (a list of community summaries) and optionally "namespace", "claims" and "chunks", not `
	tests := []struct {
		name, data, want string
	}{
		{"not json", `{"summaries":`, "index file: unexpected end of JSON input in summaries (byte offset 13)"},
		{"not json in a record", `{"summaries":[{"id":"a","level":0x1}]}`, "index file: invalid character 'x' after object key:value pair in summaries[0] (byte offset 33)"},
		{"byte order mark", "\ufeff{\"summaries\":[{\"id\":\"a\",\"level\":0}]}", "index file: JSON does not allow a UTF-8 byte order mark (U+FEFF) at byte offset 0"},
		{"nesting past the limit", `{"summaries":[{"id":"a","level":0,"title":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}]}`,
			"index file: nesting deeper than 64 levels in summaries[0].title" + strings.Repeat("[0]", 61) + " (byte offset 104)"},
		{"level 1e2", `{"summaries":[{"id":"c1","level":1e2,"summary":"s"}]}`, `summaries[0] (id c1): field "level" must be a whole number written in digits (such as 100), not a JSON number 1e2`},
		{"level 100.0", `{"summaries":[{"id":"c1","level":100.0,"summary":"s"}]}`, `summaries[0] (id c1): field "level" must be a whole number written in digits (such as 100), not a JSON number 100.0`},
		{"unknown top-level field", `{"sumaries":[]}`, `index file: json: unknown field "sumaries"`},
		{"bad namespace", `{"namespace":"Bad NS"}`, `field "namespace" must be 1-64 characters of a-z 0-9 - _ .`},
		{"level as string", `{"summaries":[{"id":"c1","level":"2","summary":"s"}]}`, `summaries[0] (id c1): field "level" must be a whole number written in digits (such as 100), not a JSON string`},
		{"unknown summary field", `{"summaries":[{"id":"c1","level":0,"summry":"s"}]}`, `summaries[0] (id c1): json: unknown field "summry"`},
		{"chunk ids not a list", `{"claims":[{"id":"k1","communityId":"c","subject":"s","sourceChunkIds":"ch1"}]}`, `claims[0] (id k1): field "sourceChunkIds" must be a list, not a JSON string`},
		{"missing summary id", `{"summaries":[{"level":0,"summary":"s"}]}`, `summaries[0]: field "id" is required`},
		{"duplicate summary id", `{"summaries":[{"id":"a","level":0},{"id":"a","level":1}]}`, `summaries[1] (id a): duplicate id`},
		{"negative level", `{"summaries":[{"id":"a","level":-1}]}`, `summaries[0] (id a): field "level" must be >= 0`},
		{"negative rank", `{"summaries":[{"id":"a","level":0,"rank":-1}]}`, `summaries[0] (id a): field "rank" must be a finite number >= 0`},
		{"rank as string", `{"summaries":[{"id":"a","level":0,"rank":"8"}]}`, `summaries[0] (id a): field "rank" must be a number, not a JSON string`},
		{"size 2.5", `{"summaries":[{"id":"a","level":0,"size":2.5}]}`, `summaries[0] (id a): field "size" must be a whole number written in digits (such as 100), not a JSON number 2.5`},
		{"negative size", `{"summaries":[{"id":"a","level":0,"size":-1}]}`, `summaries[0] (id a): field "size" must be >= 0`},
		{"claim without subject", `{"claims":[{"id":"k1","communityId":"c"}]}`, `claims[0] (id k1): field "subject" is required`},
		{"duplicate chunk", `{"chunks":[{"id":"x","text":"t"},{"id":"x","text":"u"}]}`, `chunks[1] (id x): duplicate id`},
		{"trailing data", `{} {}`, "index file: unexpected '{' after the JSON value at byte offset 3"},
		{"trailing brace", `{"summaries":[]}}`, "index file: unexpected '}' after the JSON value at byte offset 16"},
		{"trailing bracket", "{\"chunks\":[]}\n]\n", "index file: unexpected ']' after the JSON value at byte offset 14"},
		{"duplicate top-level key", `{"namespace":"a","summaries":[],"namespace":"b"}`, `index file: duplicate key "namespace" at byte offset 43`},
		{"duplicate key in a record", `{"summaries":[{"id":"c1","level":0},{"id":"c2","level":0,"summary":"s","level":1}]}`, `index file: duplicate key "level" in summaries[1] (byte offset 78)`},
		{"duplicate id key in a claim", `{"claims":[{"id":"k1","subject":"s","id":"k2"}]}`, `index file: duplicate key "id" in claims[0] (byte offset 40)`},
		{"key repeated in another case", `{"chunks":[{"id":"x","text":"t","Text":"u"}]}`, `index file: duplicate key "Text" in chunks[0] (byte offset 38)`},
		// Each value a message repeats is cut (globalsearch.Echo): a 1 MB
		// key or id gives a short message.
		{"huge unknown top-level key", `{"` + huge + `":[]}`, `index file: json: unknown field "` + shown + `"…`},
		{"huge unknown key in a record", `{"chunks":[{"id":"x","` + huge + `":1}]}`, `chunks[0] (id x): json: unknown field "` + shown + `"…`},
		{"huge id of a record that does not decode", `{"summaries":[{"id":"` + huge + `","level":"2"}]}`, `summaries[0] (id ` + shown + `…): field "level" must be a whole number written in digits (such as 100), not a JSON string`},
		{"id over the limit", `{"chunks":[{"id":"` + huge[:300] + `"},{"id":"` + huge[:300] + `"}]}`, `chunks[0] (id ` + shown + `…): field "id" is 300 bytes; an id holds at most 256`},
		// docs/contract.md#ingest: a file without summaries would empty the
		// namespace it replaces, and a search of it has nothing to read.
		{"null", `null`, noSummaries},
		{"empty object", `{}`, noSummaries},
		{"empty summaries", `{"summaries": []}`, noSummaries},
		{"null summaries", `{"namespace":"n","summaries":null}`, noSummaries},
		// A value that is no object is told what an index file is, not
		// encoding/json's field "" of a Go type.
		{"a list", `[]`, notAnObject + "an array"},
		{"a list of summaries", `[{"id":"c1","level":0,"summary":"s"}]`, notAnObject + "an array"},
		{"a string", `"summaries"`, notAnObject + "a string"},
		{"a number", `5`, notAnObject + "a number"},
		{"a boolean", `true`, notAnObject + "a boolean"},
		{"a record that is no object", `{"summaries":[5]}`, `summaries[0]: a summary must be a JSON object, not a number`},
		{"a claim that is a list", `{"summaries":[{"id":"c1","level":0}],"claims":[[]]}`, `claims[0]: a claim must be a JSON object, not an array`},
		{"only chunks and claims", `{"claims":[{"id":"k1","communityId":"c","subject":"s"}],"chunks":[{"id":"x","text":"t"}]}`, noSummaries},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := indexfile.Parse([]byte(tc.data))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "a malformed index file is invalid input")
		})
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	f := indexfile.File{Namespace: "ns", Records: globalsearch.Records{
		Summaries: []globalsearch.Summary{{ID: "c1", Level: 0, Title: "T", Summary: "中文 & <tags>", Rank: 8.5, Size: 117}},
		Claims:    []globalsearch.Claim{{ID: "k1", CommunityID: "c1", Subject: "S", SourceChunkIDs: []string{"ch1"}}},
		Chunks:    []globalsearch.Chunk{{ID: "ch1", Text: "text", DocumentID: "d"}},
	}}
	path := filepath.Join(t.TempDir(), "i.json")
	require.NoError(t, indexfile.Save(path, f))
	got, err := indexfile.Load(path)
	require.NoError(t, err)
	assert.Equal(t, f, got)
}

// An index file without rank and size (every file written before they
// existed) reads as unrated and saves as it was.
func TestRankAndSizeAreOptional(t *testing.T) {
	data := `{"summaries":[{"id":"c1","level":0,"summary":"s"}]}`
	f, err := indexfile.Parse([]byte(data))
	require.NoError(t, err)
	require.Len(t, f.Summaries, 1)
	assert.Zero(t, f.Summaries[0].Rank)
	assert.Zero(t, f.Summaries[0].Size)
	path := filepath.Join(t.TempDir(), "i.json")
	require.NoError(t, indexfile.Save(path, f))
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(saved), "rank")
	assert.NotContains(t, string(saved), "size")
}

func TestDefaultNamespace(t *testing.T) {
	f, err := indexfile.Parse([]byte(`{"summaries":[{"id":"c1","level":0,"summary":"s"}]}`))
	require.NoError(t, err)
	assert.Equal(t, "default", f.Namespace)
}

func TestSampleIndexLoads(t *testing.T) {
	f, err := indexfile.Load(filepath.Join("..", "..", "testdata", "sample-index.json"))
	require.NoError(t, err)
	assert.Equal(t, "sample", f.Namespace)
}
