package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// SpendSource is what a run's spend is read from: its plan (the rating
// calls of a finished dynamic selection live there), the ratings of one
// still rating, its map answers and the tallies of the map attempts no
// answer holds, its count of reduce calls and a tree reduce's group
// answers, each saved as the run goes (docs/contract.md#cancel).
type SpendSource interface {
	Plans
	Answers
	MapAttemptTallies
	ReduceCalls
	Selections
	ReduceRounds
}

// StoredSpend is what the current run of queryID has spent so far, by
// stage, as its stored records say: a run stopped or failed before reduce
// saved a result still reports the calls, tokens and cost it paid for
// (docs/contract.md#cancel). A query id with no plan yet has spent nothing
// that is stored. The calls in flight when a run stopped are not in it: no
// answer or tally of theirs was saved (the in-process run counts them
// itself).
func StoredSpend(ctx context.Context, src SpendSource, prices *Prices, queryID string) (Diagnostics, error) {
	return RunSpend(ctx, src, prices, queryID, "")
}

// RunSpend is StoredSpend of run runID only: a query id whose current plan
// is another run's (or that has none) spent nothing that run can claim,
// so a record of a replaced run never reports its successor's calls. An
// empty runID is the current run. This is the one rule every stopped or
// failed result's figures come from (the API's cancel, the state
// machine's failure records, a stopped execution's record).
func RunSpend(ctx context.Context, src SpendSource, prices *Prices, queryID, runID string) (Diagnostics, error) {
	plan, err := src.PlanMeta(ctx, queryID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Diagnostics{}, nil
	case err != nil:
		return Diagnostics{}, fmt.Errorf("spend of %s: load plan: %w", queryID, err)
	case runID != "" && plan.RunID != runID:
		return Diagnostics{}, nil
	}
	answers, err := src.MapAnswers(ctx, queryID, plan.RunID)
	if err != nil {
		return Diagnostics{}, fmt.Errorf("spend of %s: load map answers: %w", queryID, err)
	}
	attempts, err := src.MapAttempts(ctx, queryID, plan.RunID)
	if err != nil {
		return Diagnostics{}, fmt.Errorf("spend of %s: load map attempts: %w", queryID, err)
	}
	calls, err := src.ReduceCalls(ctx, queryID, plan.RunID)
	if err != nil {
		return Diagnostics{}, fmt.Errorf("spend of %s: load reduce calls: %w", queryID, err)
	}
	// No failure the map stage reported: a batch without an answer counts
	// the calls its tally holds (newResult).
	res := newResult(plan, answers, nil, attempts)
	res.Diagnostics.Reduce.ModelCalls = calls
	if err := addStepSpend(ctx, src, plan, &res.Diagnostics); err != nil {
		return Diagnostics{}, fmt.Errorf("spend of %s: %w", queryID, err)
	}
	res.Diagnostics.addTotals(prices)
	return res.Diagnostics, nil
}

// addStepSpend adds what the steps recorded beside the plan: the ratings
// of a selection still rating (a finished one's plan counts its rating
// calls already; the plan a selection starts with counts none) and a tree reduce's group attempts, which are reduce
// calls of the run (docs/contract.md#reduce-rounds).
func addStepSpend(ctx context.Context, src SpendSource, plan Plan, d *Diagnostics) error {
	if plan.Selection != nil && plan.Selection.RatingCalls == 0 {
		ratings, err := src.Ratings(ctx, plan.Params.QueryID, plan.RunID)
		if err != nil {
			return fmt.Errorf("load ratings: %w", err)
		}
		for _, r := range ratings {
			d.Selection.RatingCalls += r.Calls
			d.Selection.RatingInputTokens += r.InputTokens
			d.Selection.RatingOutputTokens += r.OutputTokens
		}
	}
	groups, err := src.GroupAnswers(ctx, plan.Params.QueryID, plan.RunID)
	if err != nil {
		return fmt.Errorf("load group answers: %w", err)
	}
	for _, g := range groups {
		d.Reduce.ModelCalls += g.Calls
		d.Reduce.InputTokens += g.InputTokens
		d.Reduce.OutputTokens += g.OutputTokens
	}
	return nil
}

// addTotals sums the stages into the run's totals and prices them: rating
// calls are model calls of the run too, at the map model's prices
// (docs/contract.md#dynamic-selection).
func (d *Diagnostics) addTotals(prices *Prices) {
	d.ModelCalls = d.Selection.RatingCalls + d.Map.ModelCalls + d.Reduce.ModelCalls
	d.InputTokens = d.Selection.RatingInputTokens + d.Map.InputTokens + d.Reduce.InputTokens
	d.OutputTokens = d.Selection.RatingOutputTokens + d.Map.OutputTokens + d.Reduce.OutputTokens
	if prices != nil {
		mapUsage := d.Map
		mapUsage.InputTokens += d.Selection.RatingInputTokens
		mapUsage.OutputTokens += d.Selection.RatingOutputTokens
		cost := prices.UsageCost(mapUsage, d.Reduce)
		d.Cost = &cost
	}
}

// WithSpend returns res with the spend of spent: what the run planned
// (summaries, batches, the selection) and what each stage cost. A cancelled
// or failed result built without a plan carries it so that every client
// reads what the stopped run paid for (docs/contract.md#cancel).
func (res Result) WithSpend(spent Diagnostics) Result {
	d := &res.Diagnostics
	d.SummaryCount, d.BatchCount = spent.SummaryCount, spent.BatchCount
	d.Map, d.Reduce, d.Selection = spent.Map, spent.Reduce, spent.Selection
	d.ModelCalls, d.InputTokens, d.OutputTokens = spent.ModelCalls, spent.InputTokens, spent.OutputTokens
	d.Cost = spent.Cost
	if spent.AutoLevel != nil {
		d.AutoLevel = spent.AutoLevel
	}
	return res
}

// callsMade is how many model calls a batch that a cancel stopped made:
// the attempts before its last, and the last one too when it reached the
// model (a call cancelled in flight is paid for, or may be).
func callsMade(err error) int {
	var be *BatchError
	if !errors.As(err, &be) || be.attempt == 0 {
		return 0
	}
	if be.called {
		return be.attempt
	}
	return be.attempt - 1
}

// SpendLine says what a run spent, by stage, for a client that reads no
// diagnostics: the reply of a cancelled call (docs/contract.md#cancel).
func (d Diagnostics) SpendLine() string {
	line := fmt.Sprintf("%d model calls (rating %d, map %d, reduce %d), tokens in %d out %d",
		d.ModelCalls, d.Selection.RatingCalls, d.Map.ModelCalls, d.Reduce.ModelCalls, d.InputTokens, d.OutputTokens)
	if d.Cost != nil {
		line += fmt.Sprintf(", cost ~$%.4f", d.Cost.Total())
	}
	return line
}

// runSpend is RunSpend over the engine's runs store at its prices. A store
// that cannot say is logged, and the failure is recorded without the spend
// rather than not at all.
func (e *Engine) runSpend(ctx context.Context, queryID, runID string) Diagnostics {
	d, err := RunSpend(ctx, e.Runs, e.Prices, queryID, runID)
	if err != nil {
		e.logger().LogAttrs(ctx, slogError, "spend of a failed run unread", slog.String("queryId", queryID), slog.String("error", err.Error()))
	}
	return d
}
