package indexsource

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
)

func TestWriteImportReport(t *testing.T) {
	tests := []struct {
		name   string
		report graphrag.Report
		want   []string
	}{
		{
			name: "source text",
			report: graphrag.Report{Excerpts: graphrag.ExcerptsSourceText, ClaimsAttached: 5, NoSourceText: 2, CiteTextUnit: 1,
				ExcerptChunks: 2, TextUnits: 4, TextUnitsUncited: 3, Chunks: 3},
			want: []string{
				"excerpts:  3 claims cite 2 excerpt chunks (source_text); no source text: 2 claims (1 cite their whole text unit instead, 1 cite nothing)",
				"chunks:    3 (2 excerpts, 1 whole text units; 3 of 4 text units left out: no claim cites them)",
			},
		},
		{
			name:   "text units",
			report: graphrag.Report{Excerpts: graphrag.ExcerptsTextUnit, ClaimsAttached: 5, TextUnits: 4, Chunks: 4},
			want:   []string{"chunks:    4 (whole text units)"},
		},
		{
			name:   "none",
			report: graphrag.Report{Excerpts: graphrag.ExcerptsNone, ClaimsAttached: 5},
			want:   []string{"chunks:    0 (--excerpts none: claims cite nothing)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			WriteImportReport(&out, tc.report)
			for _, w := range tc.want {
				assert.Contains(t, out.String(), w)
			}
		})
	}
}

// import's report names claims from the parquet files: the id is cut and
// quoted (globalsearch.Echo), and warnings go through cmdutil.TerminalText.
func TestImportReportDisarmsTerminalEscapes(t *testing.T) {
	var w strings.Builder
	WriteImportReport(&w, graphrag.Report{
		Unmatched: []graphrag.UnmatchedClaim{{ID: "k\x1b]0;pwned\a" + strings.Repeat("x", 1<<20), Subject: "s", Reason: "no such entity"}},
		Warnings:  []string{"a warning \x1b[2J"},
	})
	assert.NotContains(t, w.String(), "\x1b")
	assert.NotContains(t, w.String(), "\a")
	assert.Contains(t, w.String(), `claim "k\x1b]0;pwned\a`)
	assert.Contains(t, w.String(), `warning: a warning \x1b[2J`)
	assert.Less(t, w.Len(), 2000)
}

// WriteTableWrite names the table, the namespace and each kind's count.
func TestWriteTableWrite(t *testing.T) {
	var w strings.Builder
	WriteTableWrite(&w, "idx", "carol", globalsearch.Records{Summaries: make([]globalsearch.Summary, 2), Claims: make([]globalsearch.Claim, 3)})
	assert.Equal(t, "namespace carol in table idx: wrote 2 summaries, 3 claims, 0 chunks (records not in the file were deleted)\n", w.String())
}
