package indexsource

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
)

// unmatchedExamples is how many unmatched claims the summary shows per
// reason: enough to recognise the pattern, not a wall of text.
const unmatchedExamples = 3

// WriteImportReport prints what import graphrag read and, grouped by
// reason, what it left out: the text the CLI prints before it writes.
func WriteImportReport(w io.Writer, r graphrag.Report) {
	levels := make([]string, 0, len(r.Levels))
	for _, l := range slices.Sorted(maps.Keys(r.Levels)) {
		levels = append(levels, fmt.Sprintf("%d:%d", l, r.Levels[l]))
	}
	fmt.Fprintf(w, "summaries: %d (%d leaves; per level %s; %d blank)\n", r.Summaries, r.Leaves, strings.Join(levels, " "), r.BlankSummaries)
	fmt.Fprintf(w, "claims:    %d attached of %d covariates, %d unmatched (not stored)\n", r.ClaimsAttached, r.Covariates, len(r.Unmatched))
	byReason := map[string][]graphrag.UnmatchedClaim{}
	for _, u := range r.Unmatched {
		byReason[u.Reason] = append(byReason[u.Reason], u)
	}
	for _, reason := range slices.Sorted(maps.Keys(byReason)) {
		list := byReason[reason]
		fmt.Fprintf(w, "  %d: %s\n", len(list), reason)
		for _, u := range list[:min(len(list), unmatchedExamples)] {
			fmt.Fprintf(w, "    claim %s, subject %s\n", globalsearch.Echo(u.ID), globalsearch.EchoQuoted(u.Subject))
		}
	}
	writeChunkReport(w, r)
	fmt.Fprintf(w, "graph:     %d entities, %d relationships, %d documents (for show, not searched)\n", r.Entities, r.Relationships, r.Documents)
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", cmdutil.TerminalText(warning))
	}
}

// writeChunkReport says what the claims cite and which chunks were stored.
func writeChunkReport(w io.Writer, r graphrag.Report) {
	switch r.Excerpts {
	case graphrag.ExcerptsSourceText:
		fmt.Fprintf(w, "excerpts:  %d claims cite %d excerpt chunks (source_text); no source text: %d claims (%d cite their whole text unit instead, %d cite nothing)\n",
			r.ClaimsAttached-r.NoSourceText, r.ExcerptChunks, r.NoSourceText, r.CiteTextUnit, r.NoSourceText-r.CiteTextUnit)
		fmt.Fprintf(w, "chunks:    %d (%d excerpts, %d whole text units; %d of %d text units left out: no claim cites them)\n",
			r.Chunks, r.ExcerptChunks, r.Chunks-r.ExcerptChunks, r.TextUnitsUncited, r.TextUnits)
	case graphrag.ExcerptsNone:
		fmt.Fprintf(w, "chunks:    0 (--excerpts none: claims cite nothing)\n")
	default:
		fmt.Fprintf(w, "chunks:    %d (whole text units)\n", r.Chunks)
	}
}

// WriteTableWrite says what ingest or import wrote to a table
// (ReplaceInTable).
func WriteTableWrite(out io.Writer, table, namespace string, r globalsearch.Records) {
	fmt.Fprintf(out, "namespace %s in table %s: wrote %d summaries, %d claims, %d chunks (records not in the file were deleted)\n",
		namespace, table, len(r.Summaries), len(r.Claims), len(r.Chunks))
}
