package globalsearch

import (
	"context"
	"fmt"
	"time"
)

// MapBatch makes one attempt at one batch of a planned run (SPEC §5.2): it
// reads the batch, calls the model once, validates the output and saves the
// answer. attempt is the 1-based number of this attempt, recorded with the
// answer. It never retries: the caller (Search, or the state machine's Retry)
// owns the second attempt, so a batch never gets more than two.
//
// runID is the run the caller works for ("" for whichever run is current).
// A batch of another run means the query id was planned again since: the
// attempt is refused before the model call (KindNotFound). The answer is
// saved under the run of the batch it answers, so an attempt that read its
// batch before a new plan and saves after it cannot reach the new run.
func (e *Engine) MapBatch(ctx context.Context, queryID, runID string, index, attempt int) (MapAnswer, error) {
	start := time.Now()
	p, err := e.Runs.Request(ctx, queryID)
	if err != nil {
		return MapAnswer{}, fmt.Errorf("load request of %s: %w", queryID, err)
	}
	b, err := e.Runs.Batch(ctx, queryID, index)
	if err != nil {
		return MapAnswer{}, fmt.Errorf("load batch %d of %s: %w", index, queryID, err)
	}
	if runID != "" && b.RunID != runID {
		return MapAnswer{}, supersededError(queryID, runID)
	}
	resp, err := e.Model.Complete(ctx, e.prompts().Map.mapRequest(p.Query, b.Content, p.MapOutputReserve))
	if err == nil {
		var a MapAnswer
		a.Answer, a.Usefulness, err = ParseMapOutput(resp.Text)
		if err == nil {
			a.BatchIndex, a.CommunityIDs, a.Attempts = index, b.CommunityIDs, attempt
			a.InputTokens, a.OutputTokens = resp.InputTokens, resp.OutputTokens
			if err = e.Runs.SaveMapAnswer(ctx, queryID, b.RunID, a); err == nil {
				e.logger().LogAttrs(ctx, slogInfo, "map batch done", stepAttrs(queryID, "map", start,
					"batch", index, "attempts", attempt, "tokensIn", resp.InputTokens, "tokensOut", resp.OutputTokens,
					"usefulness", a.Usefulness, "status", "ok")...)
				return a, nil
			}
			err = fmt.Errorf("save answer of batch %d: %w", index, err)
		}
	}
	e.logger().LogAttrs(ctx, slogError, "map batch attempt failed", stepAttrs(queryID, "map", start,
		"batch", index, "attempts", attempt, "status", "failed", "error", err.Error())...)
	return MapAnswer{}, fmt.Errorf("map batch %d: %w", index, err)
}

// supersededError is the error of a task whose run a newer plan of the same
// query id replaced (SPEC §11.1). It is KindNotFound: that run's plan is
// gone, and no retry brings it back.
func supersededError(queryID, runID string) error {
	return fmt.Errorf("run %s of query %s was replaced by a newer plan of that query id: %w", runID, queryID, ErrNotFound)
}
