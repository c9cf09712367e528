package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// planOutput is what `plan --json` prints: the domain's report, nothing
// added (docs/contract.md#plan-report).
type planOutput = globalsearch.PlanReport

func planCommand(ctx context.Context, env *cliEnv, args []string) error {
	var quota quotaOptions
	f, err := parseSearchFlags("plan", env, args, quota.register)
	if err != nil {
		return err
	}
	q, err := quota.resolve(env)
	if err != nil {
		return err
	}
	// plan calls no model, but a bad --model or price fails here as it
	// would in run: the engine resolves the models' flags and prices.
	e, p, err := f.engine(ctx, env, false)
	if err != nil {
		return err
	}
	e.Quota = q
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return err
	}
	out := e.Report(plan)
	if f.jsonOut {
		if err := out.WriteJSON(env.stdout); err != nil {
			return err
		}
	} else {
		printPlan(env.stdout, out, p)
		if line := out.SizingLine(q, globalsearch.OutputWeight(e.ModelID)); line != "" {
			fmt.Fprintln(env.stdout, line)
		}
	}
	return checkSomethingToSearch(p.Namespace, p.CommunityLevel, out.EmptyNamespace, out.AvailableNamespaces, out.AvailableLevels)
}

// printPlan is plan's text output.
func printPlan(w io.Writer, out planOutput, p globalsearch.Params) {
	fmt.Fprintf(w, "%s -> %s (map prompt budget %d, reduce prompt budget %d, %s)\n",
		count(out.SummaryCount, "summary", "summaries"), count(out.BatchCount, "map batch", "map batches"),
		out.MapPromptBudget, out.ReducePromptBudget, seedText(out.ShuffleSeed, p))
	if out.Tokenizer != "" {
		fmt.Fprintf(w, "tokens counted with %s (batch tokens bound the prompt sent)\n", out.Tokenizer)
	}
	for i, b := range out.Batches {
		fmt.Fprintf(w, "  batch %d: %d tokens, communities %s\n", i, b.EstimatedTokens, terminalText(strings.Join(b.CommunityIDs, ", ")))
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
		fmt.Fprintln(w, terminalText(ch.Line(false)))
	}
	fmt.Fprintf(w, "on AWS: %s\n", out.MapModeLine())
	printAutoLevel(w, out.Diagnostics.AutoLevel)
	if s := out.Diagnostics.GraphRAGLevel; s != nil {
		fmt.Fprintln(w, s.Line())
	}
	if c := out.Cost; c != nil {
		fmt.Fprintf(w, "estimated cost at most ~$%.4f (one attempt per call: map $%.4f, reduce $%.4f); with every retry $%.4f\n",
			c.Total, c.Map, c.Reduce, c.WorstCase)
	}
	if len(out.AvailableLevels) > 0 {
		fmt.Fprintf(w, "no summary at level %s; levels that exist: %s\n", p.CommunityLevel, levelList(out.AvailableLevels))
	}
	if out.EmptyNamespace {
		fmt.Fprintln(w, terminalText(emptyNamespaceNote(p.Namespace, out.AvailableNamespaces)))
	}
}

// printAutoLevel shows the ladder of communityLevel "auto", finest first,
// and the rung it chose.
func printAutoLevel(w io.Writer, choice *globalsearch.LevelChoice) {
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
		fmt.Fprintf(w, " %s %-10s %s, %d tokens (%s)\n", mark, r.Level, count(r.Summaries, "summary", "summaries"), r.MapInputTokens, what)
	}
}
