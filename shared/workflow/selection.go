package workflow

import (
	"context"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The deployed dynamic selection's bounds (docs/contract.md#plan-limits):
// every rating batch of every round is an iteration of the inline
// RateCommunities Map, in the execution's own history, so the rating
// batches a selection may need (every community relevant) are held to
// MaxRatingBatches, and an inline map after them to the rest of
// InlineMaxBatches (Handlers.output). MaxSelectionRounds bounds the loop's
// own states, one pass per round: no GraphRAG hierarchy comes near it.
const (
	MaxRatingBatches   = InlineMaxBatches
	MaxSelectionRounds = 32
)

// selectNext is the SelectNext task (Prepare with task "select"): the end
// of one rating round of a dynamic selection.
func (h *Handlers) selectNext(ctx context.Context, in PrepareInput) (PrepareOutput, error) {
	if len(in.Request) > 0 || in.QueryID == "" || in.RunID == "" || in.Round < 1 {
		return PrepareOutput{}, &InvalidInputError{`select task input needs a queryId, a runId and a round from 1, and no request`}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	out, err := h.Engine.SelectNext(ctx, in.QueryID, in.RunID, in.ExecutionName, in.Round)
	if err != nil {
		return PrepareOutput{}, handlerError(ctx, err)
	}
	mode := ""
	if out.Round == 0 {
		// The map follows: its reduce mode is the stored request's.
		p, err := h.Engine.Runs.Request(ctx, in.QueryID)
		if err != nil {
			return PrepareOutput{}, handlerError(ctx, err)
		}
		mode = reduceModeOf(p)
	}
	return h.output(ctx, out, mode)
}

// rate is the RateBatch task (Map with task "rate"): exactly one attempt
// at one rating batch; the second is the state machine's Retry, as for a
// map batch (docs/contract.md#dynamic-selection).
func (h *Handlers) rate(ctx context.Context, in MapInput) (MapOutput, error) {
	if in.QueryID == "" || in.RunID == "" || in.Round < 1 || in.BatchIndex < 0 {
		return MapOutput{}, &InvalidInputError{"rate task input needs a queryId, a runId, a round from 1 and a batchIndex >= 0"}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	if _, err := h.Engine.RateBatch(ctx, in.QueryID, in.RunID, in.Round, in.BatchIndex, max(in.Attempt, 1)); err != nil {
		return MapOutput{}, handlerError(ctx, err)
	}
	return MapOutput{BatchIndex: in.BatchIndex, Rated: true}, nil
}

// StepEngine sets what the deployed prepare needs to leave a dynamic
// selection's rounds to the state machine, and the bounds its history
// puts on a reduce in rounds (MaxReduceGroups beside the rating batches,
// MaxReduceRounds; docs/contract.md#plan-limits).
func StepEngine(e *globalsearch.Engine) {
	e.RateInSteps, e.MaxRatingBatches, e.MaxRatingRounds = true, MaxRatingBatches, MaxSelectionRounds
	e.MaxReduceGroups, e.MaxReduceRounds = InlineMaxBatches, MaxReduceRounds
}
