package workflow

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The request's reduce modes (docs/contract.md#reduce-rounds), as prepare's
// output names them for the ReduceMode Choice: the domain's.
const (
	ReduceSingle = globalsearch.ReduceModeSingle
	ReduceTree   = globalsearch.ReduceModeTree
)

// reduceModeOf is the reduce mode p runs with (a request stored before the
// field existed reads as single, as the domain reads it).
func reduceModeOf(p globalsearch.Params) string {
	if p.ReduceMode == "" {
		return ReduceSingle
	}
	return p.ReduceMode
}

// MaxReduceRounds bounds the deployed reduce in rounds' loop
// (docs/contract.md#plan-limits): each round passes once through
// PlanReduceRound, RoundHasGroups and ReduceGroups, in the execution's own
// history beside a dynamic selection's loop (statemachine's
// TestHistoryBudget counts 16 passes). Its groups are iterations of the
// inline ReduceGroups Map, each retried as a map batch is and so costing
// what one costs. Candidates of like size shrink at least by half a round,
// so 16 rounds reduce far more than the 600 groups the history holds; a
// run that would need a 17th is failed as plan too large (planRound),
// recorded, instead of running past the history.
const MaxReduceRounds = 16

// ReduceSteps are the steps of a reduce in rounds
// (docs/contract.md#reduce-rounds) the reduce function's tasks call: those
// of *globalsearch.Engine.
type ReduceSteps interface {
	PlanReduceRound(ctx context.Context, queryID, runID string, failures []globalsearch.BatchFailure) (globalsearch.ReduceRound, error)
	ReduceGroupAttempt(ctx context.Context, queryID, runID string, round, index, attempt int) error
}

var _ ReduceSteps = (*globalsearch.Engine)(nil)

// reduceSteps are Rounds, else the Engine's own.
func (h *Handlers) reduceSteps() ReduceSteps {
	if h.Rounds != nil {
		return h.Rounds
	}
	return h.Engine
}

// reduceTask is the reduce function's input with a task: the start of a
// round or one group attempt.
func (h *Handlers) reduceTask(ctx context.Context, in ReduceInput) (ReduceOutput, error) {
	switch in.Task {
	case TaskRound:
		return h.planRound(ctx, in)
	case TaskGroup:
		return h.reduceGroup(ctx, in)
	case TaskStopped:
		return h.stopped(ctx, in)
	}
	return ReduceOutput{}, &InvalidInputError{fmt.Sprintf("reduce task input: task %q is not %q, %q or %q", in.Task, TaskRound, TaskGroup, TaskStopped)}
}

// planRound is the PlanReduceRound task (Reduce with task "round"): the
// next round's groups, or none when one prompt holds every candidate. It
// reads the map's failures as Reduce does and makes no model call.
func (h *Handlers) planRound(ctx context.Context, in ReduceInput) (ReduceOutput, error) {
	if in.QueryID == "" || in.RunID == "" || in.Failure != nil || in.Round != 0 || in.GroupIndex != 0 || in.Attempt != 0 || in.Execution != nil {
		return ReduceOutput{}, &InvalidInputError{`round task input needs a queryId and a runId, and no failure, round, groupIndex or attempt (those of task "group")`}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	failures, err := h.mapFailures(ctx, in)
	if err != nil {
		return ReduceOutput{}, handlerError(ctx, err)
	}
	r, err := h.reduceSteps().PlanReduceRound(ctx, in.QueryID, in.RunID, failures)
	if err != nil {
		return ReduceOutput{}, handlerError(ctx, err)
	}
	// The plan refused what the history cannot hold; a round past the
	// bound fails here, recorded, rather than the execution unrecorded.
	if r.Groups > 0 && r.Round > MaxReduceRounds {
		return ReduceOutput{}, &PlanTooLargeError{fmt.Sprintf("reduce round %d of %s: the state machine runs at most %d reduce rounds", r.Round, in.QueryID, MaxReduceRounds)}
	}
	return ReduceOutput{QueryID: in.QueryID, ReduceRound: &ReduceRound{Round: r.Round, Groups: r.Groups, GroupIndexes: indexes(r.Groups)}}, nil
}

// reduceGroup is the ReduceGroup task (Reduce with task "group"): exactly
// one model attempt at one group; the second is the state machine's Retry,
// as for a map batch.
func (h *Handlers) reduceGroup(ctx context.Context, in ReduceInput) (ReduceOutput, error) {
	if in.QueryID == "" || in.RunID == "" || in.Round < 1 || in.GroupIndex < 0 || in.Mode != "" || in.MapResults != nil || in.Failure != nil || in.Execution != nil {
		return ReduceOutput{}, &InvalidInputError{"group task input needs a queryId, a runId, a round from 1 and a groupIndex >= 0, and no mode, mapResults or failure"}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	if err := h.reduceSteps().ReduceGroupAttempt(ctx, in.QueryID, in.RunID, in.Round, in.GroupIndex, max(in.Attempt, 1)); err != nil {
		return ReduceOutput{}, handlerError(ctx, err)
	}
	return ReduceOutput{QueryID: in.QueryID}, nil
}
