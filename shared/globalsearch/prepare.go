package globalsearch

import (
	"context"
	"fmt"
	"time"
)

// PreparedRun is the run the prepare step started, what it hands on, with
// the batches themselves in the runs store (the workflow's PrepareOutput
// adds what the state machine needs). RunID names the run the plan
// started; the map and reduce steps carry it so that a step of an earlier
// plan of the same query id is refused.
//
// MapConcurrency and ETASeconds are the plan's (docs/contract.md#quota):
// the state machine's Map runs that many batches at once.
type PreparedRun struct {
	QueryID        string `json:"queryId"`
	RunID          string `json:"runId"`
	BatchCount     int    `json:"batchCount"`
	MapConcurrency int    `json:"mapConcurrency"`
	ETASeconds     int    `json:"etaSeconds"`
	// Round, while a dynamic selection rates, is the round to rate next
	// and RatingBatches its batches; 0 once the run is planned
	// (docs/contract.md#dynamic-selection). A planned selection's
	// RatingBatches is the most its rounds could rate, which share the
	// state machine's history with an inline map (docs/contract.md#plan-limits).
	Round         int `json:"round,omitempty"`
	RatingBatches int `json:"ratingBatches,omitempty"`
	// ReduceGroups is the most reduce groups a tree run's rounds could
	// make (every batch useful, every answer at its output reserve),
	// summed over its rounds: 0 in single mode or when one prompt holds
	// every answer. They are inline Map iterations in the state machine's
	// history, as rating batches are (docs/contract.md#plan-limits).
	ReduceGroups int `json:"reduceGroups,omitempty"`
}

// Prepare claims the query id for p, plans the search (docs/contract.md#prepare) and saves
// the plan as a new run of that id (docs/contract.md#query-ids):
//   - an id that already names a different request is a conflict
//     (KindConflict) naming the id, and nothing is written;
//   - the same request again (a retried or repeated start) plans from the
//     stored request, whose seed replays the shuffle, and starts a clean
//     run: nothing of an earlier plan of the id reaches the new result;
//   - a request that cannot run (invalid input found while planning, a
//     corrupt index, a plan too large) is recorded as a failed result
//     before the error is returned, so the runs store says failed first.
func (e *Engine) Prepare(ctx context.Context, p Params) (PreparedRun, error) {
	return e.PrepareAs(ctx, p, "")
}

// PrepareAs is Prepare for the execution named owner ("" for the query
// id, as the API names its executions): the one that claims the id, or
// whose run the saved plan starts, owns the id's result
// (docs/contract.md#query-ids).
func (e *Engine) PrepareAs(ctx context.Context, p Params, owner string) (PreparedRun, error) {
	out, _, err := e.prepare(ctx, p, owner)
	return out, err
}

// prepare is PrepareAs, also returning the failed result it recorded.
func (e *Engine) prepare(ctx context.Context, p Params, owner string) (PreparedRun, Result, error) {
	if owner == "" {
		owner = p.QueryID
	}
	start, started := time.Now(), e.now()
	fail := func(err error) error {
		e.logger().LogAttrs(ctx, slogError, "prepare failed", stepAttrs(p.QueryID, "prepare", start, "status", "failed", "error", err.Error())...)
		return err
	}
	if err := e.checkStanding(p); err != nil {
		return PreparedRun{}, Result{}, fail(err)
	}
	stored, _, err := ClaimRequest(ctx, e.Runs, p, owner)
	if err != nil {
		if KindOf(err) != KindConflict {
			err = fmt.Errorf("record request of %s: %w", p.QueryID, err)
		}
		return PreparedRun{}, Result{}, fail(err)
	}
	if stored.Selection == SelectionDynamic {
		out, res, err := e.prepareSelection(ctx, stored, owner)
		if err != nil {
			return PreparedRun{}, res, fail(err)
		}
		e.logger().LogAttrs(ctx, slogInfo, "prepared", stepAttrs(p.QueryID, "prepare", start,
			"runId", out.RunID, "round", out.Round, "batches", out.BatchCount, "status", "ok")...)
		return out, Result{}, nil
	}
	plan, err := e.planWith(ctx, stored, nil, 0)
	var rounds worstRounds
	if err == nil {
		rounds = e.worstReduce(plan)
		err = e.checkReduceSteps(rounds, 0)
	}
	if err != nil {
		res, err := e.failRun(context.WithoutCancel(ctx), stored, "", err)
		return PreparedRun{}, res, fail(err)
	}
	plan.CreatedAt = started // the run starts with its prepare (docs/contract.md#timeline)
	out, err := e.savePlan(ctx, plan, NewRunID(), owner)
	if err != nil {
		return PreparedRun{}, Result{}, fail(err)
	}
	out.ReduceGroups = rounds.calls()
	e.logger().LogAttrs(ctx, slogInfo, "prepared", stepAttrs(p.QueryID, "prepare", start,
		"runId", plan.RunID, "summaries", plan.SummaryCount, "batches", len(plan.Batches),
		"mapConcurrency", out.MapConcurrency, "etaSeconds", out.ETASeconds, "status", "ok")...)
	return out, Result{}, nil
}

// savePlan saves plan as run runID of its query id, owned by owner
// (docs/contract.md#query-ids).
func (e *Engine) savePlan(ctx context.Context, plan Plan, runID, owner string) (PreparedRun, error) {
	plan.RunID, plan.Owner = runID, owner
	e.sizeMap(plan.Params, &plan)
	countCodePoints(&plan)
	for i := range plan.Batches {
		plan.Batches[i].RunID = plan.RunID
	}
	if plan.CreatedAt.IsZero() {
		plan.CreatedAt = e.now()
	}
	plan.PlannedAt = e.now()
	if err := e.Runs.SavePlan(ctx, plan); err != nil {
		return PreparedRun{}, fmt.Errorf("save plan of %s: %w", plan.Params.QueryID, err)
	}
	return PreparedRun{QueryID: plan.Params.QueryID, RunID: plan.RunID, BatchCount: len(plan.Batches),
		MapConcurrency: plan.MapConcurrency, ETASeconds: plan.ETASeconds}, nil
}

// Plan builds the batches of a search without saving or calling anything:
// prepare's work, and the CLI's dry run. A dynamic selection's dry run is
// the plan of every leaf with the most rating calls the run may make
// (docs/contract.md#dynamic-selection): its communities are known only
// once they are rated.
func (e *Engine) Plan(ctx context.Context, p Params) (Plan, error) {
	if err := e.checkStanding(p); err != nil {
		return Plan{}, err
	}
	var plan Plan
	var err error
	if p.Selection == SelectionDynamic {
		plan, err = e.dynamicDryRun(ctx, p)
	} else {
		plan, err = e.planWith(ctx, p, nil, 0)
	}
	if err == nil {
		e.sizeMap(p, &plan)
	}
	return plan, err
}
