package indexfile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// docs/contract.md#ids: an id, or a field naming one, that is not valid UTF-8 (raw
// bytes, or an escaped half of a surrogate pair) is invalid input naming
// the record; encoding/json alone would read it as U+FFFD.
func TestParseRefusesIDsThatAreNotUTF8(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"summary id", "{\"summaries\":[{\"id\":\"ok\",\"level\":0},{\"id\":\"c\xff1\",\"level\":0}]}",
			`summaries[1] (id "c\xff1"): field "id" is not valid UTF-8`},
		{"chunk id, a truncated sequence", "{\"chunks\":[{\"id\":\"ch\xe4\xb8\",\"text\":\"t\"}]}",
			`chunks[0] (id "ch\xe4\xb8"): field "id" is not valid UTF-8`},
		{"claim id, a lone escaped surrogate", `{"claims":[{"id":"k\ud800","communityId":"c","subject":"s"}]}`,
			`claims[0] (id "k\xed\xa0\x80"): field "id" is not valid UTF-8`},
		{"claim id, a low surrogate first", `{"claims":[{"id":"k\udc00\ud800","communityId":"c","subject":"s"}]}`,
			`claims[0] (id "k\xed\xb0\x80\xed\xa0\x80"): field "id" is not valid UTF-8`},
		{"two ids that would both read as U+FFFD", "{\"chunks\":[{\"id\":\"x\xfe\"},{\"id\":\"x\xff\"}]}",
			`chunks[0] (id "x\xfe"): field "id" is not valid UTF-8`},
		{"a parent", "{\"summaries\":[{\"id\":\"c1\",\"level\":1,\"parentCommunityId\":\"r\xff\"}]}",
			`summaries[0] (id c1): field "parentCommunityId" is not valid UTF-8`},
		{"a claim's community", "{\"claims\":[{\"id\":\"k1\",\"communityId\":\"c\xc0\",\"subject\":\"s\"}]}",
			`claims[0] (id k1): field "communityId" is not valid UTF-8`},
		{"a cited chunk", "{\"claims\":[{\"id\":\"k1\",\"communityId\":\"c\",\"subject\":\"s\",\"sourceChunkIds\":[\"ch1\",\"ch\xff\"]}]}",
			`claims[0] (id k1): field "sourceChunkIds" holds an id that is not valid UTF-8`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := indexfile.Parse([]byte(tc.data))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		})
	}
}

// Text is not an id: invalid bytes in it read as U+FFFD, as the token
// estimate counts them (docs/contract.md#token-estimate), and escaped surrogate pairs
// are the characters they encode.
func TestParseKeepsTextAndValidEscapes(t *testing.T) {
	data := "{\"summaries\":[{\"id\":\"c\\ud83d\\ude00\",\"level\":0,\"summary\":\"bad \xff byte\"}]," +
		"\"chunks\":[{\"id\":\"\\u4e2d\\\\ud800\",\"text\":\"\\ud800 alone\"}]}"
	f, err := indexfile.Parse([]byte(data))
	require.NoError(t, err)
	require.Len(t, f.Summaries, 1)
	require.Len(t, f.Chunks, 1)
	assert.Equal(t, "c😀", f.Summaries[0].ID)
	assert.Equal(t, "bad \uFFFD byte", f.Summaries[0].Summary)
	assert.Equal(t, `中\ud800`, f.Chunks[0].ID, "an escaped backslash, then text")
	assert.Equal(t, "\uFFFD alone", f.Chunks[0].Text)
}
