package indexfile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// docs/contract.md#ids and #strict-json: a string that is not valid UTF-8
// (a raw invalid byte, or an escaped half of a surrogate pair), in an id,
// a field naming one or a text, is invalid input naming the record and the
// field. encoding/json alone would read it as U+FFFD: two ids would load
// as one, and a text would reach the model changed. It is the rule a
// request's query meets.
func TestParseRefusesTextThatIsNotUTF8(t *testing.T) {
	const prefix = "index file: " + strictjson.NotUTF8 + " in "
	tests := []struct {
		name, data, want string
	}{
		{"summary id", "{\"summaries\":[{\"id\":\"ok\",\"level\":0},{\"id\":\"c\xff1\",\"level\":0}]}", prefix + "summaries[1].id (byte offset 47)"},
		{"chunk id, a truncated sequence", "{\"chunks\":[{\"id\":\"ch\xe4\xb8\",\"text\":\"t\"}]}", prefix + "chunks[0].id (byte offset 23)"},
		{"claim id, a lone escaped surrogate", `{"claims":[{"id":"k\ud800","communityId":"c","subject":"s"}]}`, prefix + "claims[0].id (byte offset 26)"},
		{"claim id, a low surrogate first", `{"claims":[{"id":"k\udc00\ud800","communityId":"c","subject":"s"}]}`, prefix + "claims[0].id (byte offset 32)"},
		{"two ids that would both read as U+FFFD", "{\"chunks\":[{\"id\":\"x\xfe\"},{\"id\":\"x\xff\"}]}", prefix + "chunks[0].id (byte offset 21)"},
		{"a parent", "{\"summaries\":[{\"id\":\"c1\",\"level\":1,\"parentCommunityId\":\"r\xff\"}]}", prefix + "summaries[0].parentCommunityId (byte offset 59)"},
		{"a claim's community", "{\"claims\":[{\"id\":\"k1\",\"communityId\":\"c\xc0\",\"subject\":\"s\"}]}", prefix + "claims[0].communityId (byte offset 40)"},
		{"a cited chunk", "{\"claims\":[{\"id\":\"k1\",\"communityId\":\"c\",\"subject\":\"s\",\"sourceChunkIds\":[\"ch1\",\"ch\xff\"]}]}", prefix + "claims[0].sourceChunkIds[1] (byte offset 83)"},
		{"summary text", "{\"summaries\":[{\"id\":\"c1\",\"level\":0,\"summary\":\"bad \xff byte\"}]}", prefix + "summaries[0].summary (byte offset 57)"},
		{"chunk text, a lone surrogate", `{"summaries":[{"id":"c1","level":0}],"chunks":[{"id":"x","text":"\ud800 alone"}]}`, prefix + "chunks[0].text (byte offset 78)"},
		{"title", "{\"summaries\":[{\"id\":\"c1\",\"level\":0,\"title\":\"\xfe\"}]}", prefix + "summaries[0].title (byte offset 46)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := indexfile.Parse([]byte(tc.data))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, strictjson.ErrNotUTF8)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		})
	}
}

// Escaped surrogate pairs are the characters they encode, and an escaped
// backslash before "ud800" is text.
func TestParseKeepsValidEscapes(t *testing.T) {
	data := `{"summaries":[{"id":"c\ud83d\ude00","level":0,"summary":"\u4e2d\u6587"}],` +
		`"chunks":[{"id":"\u4e2d\\ud800","text":"\uD83D\uDE00 alone"}]}`
	f, err := indexfile.Parse([]byte(data))
	require.NoError(t, err)
	require.Len(t, f.Summaries, 1)
	require.Len(t, f.Chunks, 1)
	assert.Equal(t, "c😀", f.Summaries[0].ID)
	assert.Equal(t, "中文", f.Summaries[0].Summary)
	assert.Equal(t, `中\ud800`, f.Chunks[0].ID, "an escaped backslash, then text")
	assert.Equal(t, "😀 alone", f.Chunks[0].Text)
}

// TestParseNumberRule: an index file's integers are read by the rule a
// request's are (strictjson.Int, docs/contract.md#strict-json): 1e2 and 1.0
// are refused, -0 is 0, and a float field (rank) reads any JSON number.
func TestParseNumberRule(t *testing.T) {
	tests := []struct {
		name, value string
	}{
		{"exponent", "1e2"},
		{"decimal point", "1.0"},
		{"minus zero", "-0"},
		{"digits", "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := strictjson.Int([]byte(tc.value))
			for _, field := range []string{"level", "size"} {
				data := `{"summaries":[{"id":"c1","level":0,"summary":"s","` + field + `":` + tc.value + `}]}`
				if field == "level" {
					data = `{"summaries":[{"id":"c1","level":` + tc.value + `,"summary":"s"}]}`
				}
				f, err := indexfile.Parse([]byte(data))
				if !ok {
					require.Error(t, err, field)
					assert.Contains(t, err.Error(), `field "`+field+`" must be a whole number written in digits (such as 100), not a JSON number `+tc.value)
					continue
				}
				require.NoError(t, err, field)
				got := f.Summaries[0].Level
				if field == "size" {
					got = f.Summaries[0].Size
				}
				assert.Equal(t, int(want), got, field)
			}
			f, err := indexfile.Parse([]byte(`{"summaries":[{"id":"c1","level":0,"summary":"s","rank":` + tc.value + `}]}`))
			require.NoError(t, err, "rank is a number, not an integer")
			assert.Zero(t, f.Summaries[0].Rank-map[string]float64{"1e2": 100, "1.0": 1, "-0": 0, "3": 3}[tc.value])
		})
	}
}
