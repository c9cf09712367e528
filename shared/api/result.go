package api

import "github.com/graphrag-global/graphrag-global/shared/globalsearch"

// ResultReply is a result as GET answers it (docs/contract.md#result-reading):
// the stored result and two readings of it a client would otherwise
// re-derive, computed by the code `run` prints with. The page shows
// them as they come, so the coverage line and the citation marks have
// one implementation.
type ResultReply struct {
	globalsearch.Result
	// CoverageLine is diagnostics.coverage in the words `run` prints
	// under its status line (docs/contract.md#coverage), with its hint
	// when one reduce prompt skipped useful answers
	// (docs/contract.md#reduce-rounds).
	CoverageLine string `json:"coverageLine"`
	// CitationMarks are the answer's citation marks as the engine reads
	// them (docs/contract.md#citation-marks), with byte offsets into the
	// answer's UTF-8.
	CitationMarks []globalsearch.MarkSpan `json:"citationMarks"`
}

// NewResultReply is res as GET answers it.
func NewResultReply(res globalsearch.Result) ResultReply {
	return ResultReply{Result: res, CoverageLine: res.Diagnostics.Coverage.LineWithReduceHint(), CitationMarks: globalsearch.MarkSpans(res.Answer)}
}
