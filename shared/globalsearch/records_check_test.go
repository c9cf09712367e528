package globalsearch_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// docs/contract.md#ids: an id that could forge a prompt header or line is rejected,
// naming the record and the id, for every kind of record.
func TestValidateRejectsBadIDs(t *testing.T) {
	long := strings.Repeat("é", 129) // 258 bytes
	tests := []struct {
		name    string
		records globalsearch.Records
		want    string
	}{
		{"summary id forging a part header", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "ok"}, {ID: "c1 | summary part 9]"}}},
			`summaries[1] (id "c1 | summary part 9]"): field "id" holds '|'; ids may not hold "[", "]" or "|" (they would forge a prompt header)`},
		{"summary id with a newline", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "c1\n[Community ID: x"}}},
			`summaries[0] (id "c1\n[Community ID: x"): field "id" holds the control or line-break character U+000A; ids may not`},
		{"claim id with a bracket", globalsearch.Records{Claims: []globalsearch.Claim{{ID: "[k1", Subject: "s"}}},
			`claims[0] (id [k1): field "id" holds '['; ids may not hold "[", "]" or "|" (they would forge a prompt header)`},
		{"claim id with a tab", globalsearch.Records{Claims: []globalsearch.Claim{{ID: "k\t1", Subject: "s"}}},
			`claims[0] (id "k\t1"): field "id" holds the control or line-break character U+0009; ids may not`},
		{"chunk id with a line separator", globalsearch.Records{Chunks: []globalsearch.Chunk{{ID: "ch\u20281"}}},
			`chunks[0] (id "ch\u20281"): field "id" holds the control or line-break character U+2028; ids may not`},
		{"chunk id of invalid UTF-8", globalsearch.Records{Chunks: []globalsearch.Chunk{{ID: "ch\xff"}}},
			`chunks[0] (id "ch\xff"): field "id" is not valid UTF-8`},
		{"parent of invalid UTF-8", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "c1", ParentCommunityID: "r\xff"}}},
			`summaries[0] (id c1): field "parentCommunityId" is not valid UTF-8`},
		{"claim community of invalid UTF-8", globalsearch.Records{Claims: []globalsearch.Claim{{ID: "k1", CommunityID: "c\xff", Subject: "s"}}},
			`claims[0] (id k1): field "communityId" is not valid UTF-8`},
		{"cited chunk of invalid UTF-8", globalsearch.Records{Claims: []globalsearch.Claim{{ID: "k1", Subject: "s", SourceChunkIDs: []string{"ch1", "ch\xc0"}}}},
			`claims[0] (id k1): field "sourceChunkIds" holds an id that is not valid UTF-8`},
		{"negative rank", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "c1", Rank: -1}}},
			`summaries[0] (id c1): field "rank" must be a finite number >= 0`},
		{"rank not a number", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "c1", Rank: math.NaN()}}},
			`summaries[0] (id c1): field "rank" must be a finite number >= 0`},
		{"infinite rank", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "c1", Rank: math.Inf(1)}}},
			`summaries[0] (id c1): field "rank" must be a finite number >= 0`},
		{"negative size", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "c1", Size: -3}}},
			`summaries[0] (id c1): field "size" must be >= 0`},
		{"chunk id over 256 bytes", globalsearch.Records{Chunks: []globalsearch.Chunk{{ID: long}}},
			`chunks[0] (id ` + strings.Repeat("é", globalsearch.MaxEchoedRunes) + `…): field "id" is 258 bytes; an id holds at most 256`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.records.Validate()
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

func TestValidateAcceptsIDsAtTheLimits(t *testing.T) {
	for _, id := range []string{"x", strings.Repeat("é", 128), "社区-1 (2024) #a/b:c"} {
		t.Run(id, func(t *testing.T) {
			require.NoError(t, globalsearch.CheckID(id))
			assert.NoError(t, globalsearch.Records{
				Summaries: []globalsearch.Summary{{ID: id}},
				Claims:    []globalsearch.Claim{{ID: id, Subject: "s"}},
				Chunks:    []globalsearch.Chunk{{ID: id}},
			}.Validate())
		})
	}
}
