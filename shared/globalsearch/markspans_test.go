package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MarkSpans is the reading ParseCitations makes, with byte offsets: a
// no-break space (which JavaScript's \s would match) is no mark, and
// "+more" is no id (docs/contract.md#citation-spans).
func TestMarkSpansAreTheEnginesReading(t *testing.T) {
	answer := "é [Data: Community ( c1 ,+more)] x [Data:\u00a0Reports (c2)] [data: communities (c3,, c4 )] [Data: Reports (c5)]"
	spans := globalsearch.MarkSpans(answer)
	assert.Len(t, spans, 3)
	var ids []string
	for _, s := range spans {
		for _, id := range s.IDs {
			assert.Equal(t, id.ID, answer[id.Start:id.End])
			ids = append(ids, id.ID)
		}
	}
	assert.Equal(t, globalsearch.ParseCitations(answer), ids)
	assert.Equal(t, "[Data: Community ( c1 ,+more)]", answer[spans[0].Start:spans[0].End])
	assert.True(t, spans[0].More)
	assert.False(t, spans[1].More)
	assert.Equal(t, "[Data: Reports (c5)]", answer[spans[2].Start:spans[2].End])
	assert.Equal(t, []globalsearch.MarkSpan{}, globalsearch.MarkSpans("no marks"))
}
