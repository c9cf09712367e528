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
	EstimatedMapInputTokens int    `json:"estimatedMapInputTokens"`
	MaxModelCalls           int    `json:"maxModelCalls"`
	// ModelCallCeiling is the most the run may make (docs/contract.md#model-call-ceiling): a plan
	// over it is refused, so MaxModelCalls never exceeds it.
	ModelCallCeiling int `json:"modelCallCeiling"`
	// MapMode is how a deployment's state machine would run the plan
	// (shared/workflow MapMode): inline or distributed.
	MapMode string `json:"mapMode"`
	globalsearch.IndexNotes
	// Diagnostics holds the plan's coverage where a result holds its own
	// (docs/contract.md#coverage), so one reader serves both.
	Diagnostics planDiagnostics `json:"diagnostics"`
	Batches     []plannedBatch  `json:"batches"`
}

type planDiagnostics struct {
	Coverage globalsearch.Coverage `json:"coverage"`
}

// newPlanOutput describes a plan as `plan` prints it.
func newPlanOutput(plan globalsearch.Plan, p globalsearch.Params) planOutput {
	out := planOutput{
		SummaryCount: plan.SummaryCount, BatchCount: len(plan.Batches),
		MapPromptBudget: p.MapPromptBudget(), ReducePromptBudget: p.ReducePromptBudget(),
		MapSkeleton: plan.MapSkeleton, ShuffleSeed: p.ShuffleSeed, Tokenizer: p.Tokenizer,
		IndexNotes:  plan.IndexNotes,
		Diagnostics: planDiagnostics{Coverage: plan.Coverage},
		Batches:     make([]plannedBatch, len(plan.Batches)),
	}
	for i, b := range plan.Batches {
		out.Batches[i] = plannedBatch{CommunityIDs: b.CommunityIDs, EstimatedTokens: b.EstimatedTokens, Content: b.Content}
		out.EstimatedMapInputTokens += b.EstimatedTokens
	}
	out.MaxModelCalls = globalsearch.MostModelCalls(len(plan.Batches))
	return out
}

// cost is the most the plan can cost at the model's prices, one attempt
// per call and every output reserve spent in full, when prices are set.
func (out planOutput) cost(model *modelOptions, p globalsearch.Params) (float64, bool) {
	maxOut := out.BatchCount*p.MapOutputReserve + p.ReduceOutputReserve
	return model.cost(out.EstimatedMapInputTokens+p.ReducePromptBudget(), maxOut)
}

type plannedBatch struct {
	CommunityIDs    []string `json:"communityIds"`
	EstimatedTokens int      `json:"estimatedTokens"`
	Content         string   `json:"content"`
}

func planCommand(ctx context.Context, env *cliEnv, args []string) error {
	f, err := parseSearchFlags("plan", env, args)
	if err != nil {
		return err
	}
	e, p, err := f.engine(ctx, env, false)
	if err != nil {
		return err
	}
	// plan calls no model, but a bad --model or price must fail here as it
	// would in run, and prices may come from the environment.
	if _, err := parseModelSpec(f.model.spec); err != nil {
		return err
	}
	if err := f.model.resolve(env); err != nil {
		return err
	}
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return err
	}
	out := newPlanOutput(plan, p)
	out.ModelCallCeiling = p.MaxModelCalls
	out.MapMode = workflow.MapMode(len(plan.Batches), 0)
	if f.jsonOut {
		if err := writePlanJSON(env.stdout, out); err != nil {
			return err
		}
	} else {
		printPlan(env.stdout, out, p, &f.model)
	}
	return checkSomethingToSearch(p.Namespace, p.CommunityLevel, out.EmptyNamespace, out.AvailableNamespaces, out.AvailableLevels)
}

// printPlan is plan's text output.
func printPlan(w io.Writer, out planOutput, p globalsearch.Params, model *modelOptions) {
	fmt.Fprintf(w, "%s -> %s (map prompt budget %d, reduce prompt budget %d, %s)\n",
		count(out.SummaryCount, "summary", "summaries"), count(out.BatchCount, "map batch", "map batches"),
		out.MapPromptBudget, out.ReducePromptBudget, seedText(out.ShuffleSeed, p.Shuffle))
	if out.Tokenizer != "" {
		fmt.Fprintf(w, "tokens counted with %s (batch tokens bound the prompt sent)\n", out.Tokenizer)
	}
	for i, b := range out.Batches {
		fmt.Fprintf(w, "  batch %d: %d tokens, communities %s\n", i, b.EstimatedTokens, terminalText(strings.Join(b.CommunityIDs, ", ")))
	}
	fmt.Fprintf(w, "estimated map input %d tokens; at most %s (ceiling %d)\n", out.EstimatedMapInputTokens, count(out.MaxModelCalls, "model call", "model calls"), out.ModelCallCeiling)
	fmt.Fprintln(w, out.Diagnostics.Coverage.Line())
	fmt.Fprintf(w, "on AWS: %s\n", awsMode(out.MapMode, out.BatchCount))
	if usd, ok := out.cost(model, p); ok {
		fmt.Fprintf(w, "estimated cost at most ~$%.4f (one attempt per call)\n", usd)
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
