package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// planOutput is what `plan --json` prints.
type planOutput struct {
	SummaryCount       int `json:"summaryCount"`
	BatchCount         int `json:"batchCount"`
	MapPromptBudget    int `json:"mapPromptBudget"`
	ReducePromptBudget int `json:"reducePromptBudget"`
	// Tokenizer counted the budgets (docs/contract.md#tokenizer); absent for the estimate.
	Tokenizer               string `json:"tokenizer,omitempty"`
	MapSkeleton             string `json:"mapSkeleton"`
	ShuffleSeed             int64  `json:"shuffleSeed"`
	Batching                string `json:"batching,omitempty"` // "stable" (docs/contract.md#stable-batching); absent for the shuffle, so a default plan prints as it did
	EstimatedMapInputTokens int    `json:"estimatedMapInputTokens"`
	MaxModelCalls           int    `json:"maxModelCalls"`
	// ModelCallCeiling is the most the run may make (docs/contract.md#model-call-ceiling): a plan
	// over it is refused, so MaxModelCalls never exceeds it.
	ModelCallCeiling int `json:"modelCallCeiling"`
	// MapMode is how a deployment's state machine would run the plan
	// (shared/workflow MapMode): inline or distributed.
	MapMode string `json:"mapMode"`
	// MapConcurrency and ETASeconds are the map concurrency and the time
	// of a run at the quota or call time given (docs/contract.md#quota);
	// absent when none is, so that such a plan prints as it always did.
	MapConcurrency int `json:"mapConcurrency,omitempty"`
	ETASeconds     int `json:"etaSeconds,omitempty"`
	// Selection is a dynamic selection's worst case and the leaf plan
	// its batches are (docs/contract.md#dynamic-selection).
	Selection globalsearch.SelectionReport `json:"selection,omitzero"`
	globalsearch.IndexNotes
	// Diagnostics holds the plan's coverage where a result holds its own
	// (docs/contract.md#coverage), so one reader serves both.
	Diagnostics planDiagnostics `json:"diagnostics"`
	// Cost is what the plan may cost per stage, when prices are set
	// (docs/contract.md#cost).
	Cost    *planCost      `json:"cost,omitempty"`
	Batches []plannedBatch `json:"batches"`
}

type planDiagnostics struct {
	Coverage globalsearch.Coverage `json:"coverage"`
	// Changes is what changed since the last run of the plan's standing
	// question (docs/contract.md#standing-questions).
	Changes *globalsearch.Changes `json:"changes,omitempty"`
	// AutoLevel is the ladder of communityLevel "auto" and its choice
	// (docs/contract.md#auto-level), where a result holds it.
	AutoLevel *globalsearch.LevelChoice `json:"autoLevel,omitempty"`
}

// newPlanOutput describes a plan as `plan` prints it.
func newPlanOutput(plan globalsearch.Plan, p globalsearch.Params) planOutput {
	out := planOutput{
		SummaryCount: plan.SummaryCount, BatchCount: len(plan.Batches),
		MapPromptBudget: p.MapPromptBudget(), ReducePromptBudget: p.ReducePromptBudget(),
		MapSkeleton: plan.MapSkeleton, ShuffleSeed: p.ShuffleSeed, Tokenizer: p.Tokenizer,
		IndexNotes:  plan.IndexNotes,
		Diagnostics: planDiagnostics{Coverage: plan.Coverage, Changes: plan.Changes, AutoLevel: plan.AutoLevel},
		Batches:     make([]plannedBatch, len(plan.Batches)),
	}
	if p.Batching == globalsearch.BatchingStable {
		out.Batching = p.Batching
	}
	for i, b := range plan.Batches {
		out.Batches[i] = plannedBatch{CommunityIDs: b.CommunityIDs, EstimatedTokens: b.EstimatedTokens, Content: b.Content}
	}
	out.EstimatedMapInputTokens = plan.MapInputTokens()
	out.MaxModelCalls = globalsearch.MostModelCalls(len(plan.Batches))
	if plan.Selection != nil {
		out.Selection = *plan.Selection
		out.MaxModelCalls += plan.Selection.MostRatingCalls
	}
	return out
}

type plannedBatch struct {
	CommunityIDs    []string `json:"communityIds"`
	EstimatedTokens int      `json:"estimatedTokens"`
	Content         string   `json:"content"`
}

func planCommand(ctx context.Context, env *cliEnv, args []string) error {
	var quota quotaOptions
	f, err := parseSearchFlagsWith("plan", env, args, quota.register)
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
	out, err := planFor(ctx, e, p)
	if err != nil {
		return err
	}
	if f.jsonOut {
		if err := writePlanJSON(env.stdout, out); err != nil {
			return err
		}
	} else {
		printPlan(env.stdout, out, p)
		printSizing(env.stdout, out, q, globalsearch.OutputWeight(e.ModelID))
	}
	return checkSomethingToSearch(p.Namespace, p.CommunityLevel, out.EmptyNamespace, out.AvailableNamespaces, out.AvailableLevels)
}

// planFor plans p as `plan` prints it (serve's plans route prints the same).
func planFor(ctx context.Context, e *globalsearch.Engine, p globalsearch.Params) (planOutput, error) {
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return planOutput{}, err
	}
	out := newPlanOutput(plan, p)
	out.Cost = newPlanCost(e.Prices, out, p)
	out.ModelCallCeiling = p.MaxModelCalls
	// A dynamic selection's rating batches share the execution's history
	// with an inline Map (docs/contract.md#plan-limits): its worst case is
	// every leaf mapped after every community rated.
	out.MapMode = workflow.MapMode(len(plan.Batches)+out.Selection.MostRatingCalls/globalsearch.RatingAttempts, 0)
	if e.Quota != (globalsearch.Quota{}) {
		out.MapConcurrency, out.ETASeconds = plan.MapConcurrency, plan.ETASeconds
	}
	return out, nil
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
		fmt.Fprintf(w, "dynamic selection: the batches above map every leaf, what rating every community relevant selects; rating may make up to %s\n",
			count(out.Selection.MostRatingCalls, "rating call", "rating calls"))
	}
	fmt.Fprintf(w, "estimated map input %d tokens; at most %s (ceiling %d)\n", out.EstimatedMapInputTokens, count(out.MaxModelCalls, "model call", "model calls"), out.ModelCallCeiling)
	fmt.Fprintln(w, out.Diagnostics.Coverage.Line())
	if ch := out.Diagnostics.Changes; ch != nil {
		fmt.Fprintln(w, terminalText(ch.Line(false)))
	}
	fmt.Fprintf(w, "on AWS: %s\n", awsMode(out.MapMode, out.BatchCount))
	printAutoLevel(w, out.Diagnostics.AutoLevel)
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

// awsMode says how a deployment would run a plan of n batches.
func awsMode(mode string, n int) string {
	line := fmt.Sprintf("%s Map (the inline Map runs at most %d batches)", mode, workflow.InlineMaxBatches)
	if n > workflow.DefaultMaxBatches {
		line += fmt.Sprintf("; refused by a deployment with the default MaxBatches %d", workflow.DefaultMaxBatches)
	}
	return line
}
