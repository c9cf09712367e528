package localengine

import (
	"fmt"
	"io"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// WritePlan is plan's text output (docs/contract.md#plan-report): the
// report in lines, ids and changes escaped for a terminal.
func WritePlan(w io.Writer, out globalsearch.PlanReport, p globalsearch.Params) {
	count := globalsearch.Plural
	fmt.Fprintf(w, "%s -> %s (map prompt budget %d, reduce prompt budget %d, %s)\n",
		count(out.SummaryCount, "summary", "summaries"), count(out.BatchCount, "map batch", "map batches"),
		out.MapPromptBudget, out.ReducePromptBudget, SeedText(out.ShuffleSeed, p))
	if out.Tokenizer != "" {
		fmt.Fprintf(w, "tokens counted with %s (batch tokens bound the prompt sent)\n", out.Tokenizer)
	}
	for i, b := range out.Batches {
		fmt.Fprintf(w, "  batch %d: %d tokens, communities %s\n", i, b.EstimatedTokens, cmdutil.TerminalText(strings.Join(b.CommunityIDs, ", ")))
	}
	if p.Selection == globalsearch.SelectionDynamic {
		fmt.Fprintf(w, "dynamic selection: the batches above map every leaf, what rating every community relevant selects; rating may make up to %s of %d estimated input tokens in all (each batch once)\n",
			count(out.WorstCase.RatingCalls, "rating call", "rating calls"), out.Selection.MostRatingInputTokens)
	}
	fmt.Fprintf(w, "estimated map input %d tokens; at most %s (ceiling %d)\n", out.EstimatedMapInputTokens, count(out.MaxModelCalls, "model call", "model calls"), out.ModelCallCeiling)
	if line := out.WorstCase.RoundsLine(); line != "" {
		fmt.Fprintln(w, line)
	}
	if out.WorstCase.RatingCalls > 0 {
		fmt.Fprintln(w, "  before selecting: rating, then one map batch and the reduce; the communities selected are held to the ceilings again beside what rating spent")
	}
	fmt.Fprintln(w, out.Diagnostics.Coverage.Line())
	if ch := out.Diagnostics.Changes; ch != nil {
		fmt.Fprintln(w, cmdutil.TerminalText(ch.Line(false)))
	}
	fmt.Fprintf(w, "on AWS: %s\n", out.MapModeLine())
	writeAutoLevel(w, out.Diagnostics.AutoLevel)
	if s := out.Diagnostics.GraphRAGLevel; s != nil {
		fmt.Fprintln(w, s.Line())
	}
	if c := out.Cost; c != nil {
		fmt.Fprintf(w, "estimated cost at most ~$%.4f (one attempt per call: map $%.4f, reduce $%.4f); with every retry $%.4f\n",
			c.Total, c.Map, c.Reduce, c.WorstCase)
	}
	if len(out.AvailableLevels) > 0 {
		fmt.Fprintf(w, "no summary at level %s; levels that exist: %s\n", p.CommunityLevel, globalsearch.LevelList(out.AvailableLevels))
	}
	if out.EmptyNamespace {
		fmt.Fprintln(w, cmdutil.TerminalText(globalsearch.EmptyNamespaceNote(p.Namespace, out.AvailableNamespaces)))
	}
}

// writeAutoLevel shows the ladder of communityLevel "auto", finest first,
// and the rung it chose.
func writeAutoLevel(w io.Writer, choice *globalsearch.LevelChoice) {
	if choice == nil {
		return
	}
	fmt.Fprintf(w, "level auto under %d map input tokens: level %s\n", choice.MaxMapInputTokens, choice.LevelUsed)
	for _, r := range choice.Ladder {
		mark := " "
		if r.Level == choice.LevelUsed {
			mark = "*"
		}
		what := "every leaf"
		if r.Level != globalsearch.LeafLevel {
			n, _ := r.Level.GraphRAG()
			what = fmt.Sprintf("level %d and the leaves above it", n)
		}
		if r.PlannedMapInputTokens > 0 {
			what += fmt.Sprintf("; packed, %d tokens", r.PlannedMapInputTokens)
		}
		fmt.Fprintf(w, " %s %-10s %s, %d tokens (%s)\n", mark, r.Level, globalsearch.Plural(r.Summaries, "summary", "summaries"), r.MapInputTokens, what)
	}
}

// SeedText is how the text output names the order of p's batches: the
// seed, that there was none (shuffle false records seed 0,
// docs/contract.md#request), or the seed of stable batching
// (docs/contract.md#stable-batching).
func SeedText(seed int64, p globalsearch.Params) string {
	switch {
	case p.Batching == globalsearch.BatchingStable:
		return fmt.Sprintf("stable batching, seed %d", seed)
	case !p.Shuffle:
		return "no shuffle"
	}
	return fmt.Sprintf("seed %d", seed)
}
