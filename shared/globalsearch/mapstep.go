package globalsearch

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// MapBatch makes one attempt at one batch of a planned run (docs/contract.md#map-calls): it
// reads the batch, calls the model once, validates the output and saves the
// answer. attempt is the 1-based number of this attempt, recorded with the
// answer. It never retries: the caller (Search, or the state machine's Retry)
// owns the second attempt, so a batch never gets more than two. A failed
// model call, model output or save is a *BatchError naming the batch.
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
	prompts := e.prompts()
	req := prompts.Map.mapRequest(p.Query, b.Content, p.MapOutputReserve)
	req.System = prompts.System
	req.Parts = withCentrality(req.Parts, b.Centrality)
	req = p.WithCallSettings(req)
	key, headerIDs := "", []string(nil)
	if p.Cache && e.Cache != nil {
		key, headerIDs = mapCacheKey(e.ModelID, req.SystemPrompt(), req.Prompt, p.MapOutputReserve)
		if a, dropped, ok := e.cachedAnswer(ctx, queryID, key, headerIDs); ok && citeWithin(&a, b) == nil {
			// The earlier attempts of this batch were real calls; the hit is not.
			a.BatchIndex, a.CommunityIDs, a.Attempts, a.Cached = index, b.CommunityIDs, attempt-1, true
			a.DroppedCitations += dropped
			a.AnsweredAt = e.now()
			if err = e.Runs.SaveMapAnswer(ctx, queryID, b.RunID, a); err == nil {
				e.logger().LogAttrs(ctx, slogInfo, "map batch done", stepAttrs(queryID, "map", start,
					"batch", index, "attempts", attempt, "usefulness", a.Usefulness, "status", "cached")...)
				return a, nil
			}
			err = fmt.Errorf("save answer of batch %d: %w", index, err)
			e.logger().LogAttrs(ctx, slogError, "map batch attempt failed", stepAttrs(queryID, "map", start,
				"batch", index, "attempts", attempt, "status", "failed", "error", err.Error())...)
			return MapAnswer{}, &BatchError{Index: index, Err: err}
		}
	}
	calledAt := e.now()
	resp, err := e.Model.Complete(ctx, req)
	refused := err != nil && KindOf(err) == KindThrottled
	if err == nil {
		var a MapAnswer
		if a, err = e.keepAnswer(ctx, queryID, b, attempt, key, headerIDs, MapAnswer{BatchIndex: index, CalledAt: calledAt, AnsweredAt: e.now()}, resp); err == nil {
			e.logger().LogAttrs(ctx, slogInfo, "map batch done", stepAttrs(queryID, "map", start,
				"batch", index, "attempts", attempt, "tokensIn", resp.InputTokens, "tokensOut", resp.OutputTokens,
				"usefulness", a.Usefulness, "status", "ok")...)
			return a, nil
		}
	}
	// A throttled call is the model refusing admission: with --concurrency
	// auto it spends no attempt (docs/contract.md#auto-concurrency), so the
	// log says which it was, and it is no call of the run's figures. At a
	// fixed limit it is a failed attempt like any other, and so counted.
	status := "failed"
	if refused {
		status = "throttled"
	}
	if !refused || e.AutoConcurrency == nil {
		e.tallyAttempt(ctx, queryID, b.RunID, MapAttempt{BatchIndex: index, Calls: 1,
			InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens,
			CacheReadInputTokens: resp.CacheReadInputTokens, CacheWriteInputTokens: resp.CacheWriteInputTokens})
	}
	e.logger().LogAttrs(ctx, slogError, "map batch attempt failed", stepAttrs(queryID, "map", start,
		"batch", index, "attempts", attempt, "status", status, "error", err.Error())...)
	return MapAnswer{}, &BatchError{Index: index, Err: err, refused: refused, attempt: attempt, called: true}
}

// keepAnswer validates the model's output resp for batch b, caches it
// (under key, when set) and saves it as the answer a of this attempt (a
// holds its batch index and times). An output that breaks the rules, or a
// save that fails, is its error: the caller counts that attempt's call and
// tokens elsewhere (tallyAttempt).
func (e *Engine) keepAnswer(ctx context.Context, queryID string, b Batch, attempt int, key string, headerIDs []string, a MapAnswer, resp ModelResponse) (MapAnswer, error) {
	var err error
	a.Answer, a.Usefulness, err = ParseMapOutput(resp.Text)
	raw := a.Answer
	if err == nil {
		err = citeWithin(&a, b)
	}
	if err != nil {
		return MapAnswer{}, err
	}
	a.CommunityIDs, a.Attempts = b.CommunityIDs, attempt
	a.InputTokens, a.OutputTokens = resp.InputTokens, resp.OutputTokens
	a.CacheReadInputTokens, a.CacheWriteInputTokens = resp.CacheReadInputTokens, resp.CacheWriteInputTokens
	if key != "" {
		// The model's own answer: a hit is held to its batch again,
		// so it reports the same dropped ids.
		e.cacheAnswer(ctx, queryID, key, CachedAnswer{Answer: raw, Usefulness: a.Usefulness, CommunityIDs: headerIDs})
	}
	if err := e.Runs.SaveMapAnswer(ctx, queryID, b.RunID, a); err != nil {
		return MapAnswer{}, fmt.Errorf("save answer of batch %d: %w", a.BatchIndex, err)
	}
	return a, nil
}

// tallyAttempt records a map attempt whose call was made but whose answer
// was not saved, so that the call and its tokens are counted although no
// answer holds them (docs/contract.md#failed-attempts). It is saved even when
// the run's context has ended: a call cancelled in flight may be paid for.
// A failed write is logged and leaves the attempt's own error as it was:
// the figures then miss that one attempt, as they did before tallies.
func (e *Engine) tallyAttempt(ctx context.Context, queryID, runID string, a MapAttempt) {
	if err := e.Runs.AddMapAttempt(saveContext(ctx, StatusFailed), queryID, runID, a); err != nil {
		e.logger().LogAttrs(ctx, slogError, "map attempt tally unsaved", slog.String("queryId", queryID),
			slog.Int("batch", a.BatchIndex), slog.Int("tokensIn", a.InputTokens), slog.Int("tokensOut", a.OutputTokens),
			slog.String("error", err.Error()))
	}
}

// citeWithin holds a's citation marks to its batch (CiteWithin,
// docs/contract.md#citation-marks). An answer that cited nothing but
// communities outside its batch and is left empty breaks the output rules.
func citeWithin(a *MapAnswer, b Batch) error {
	answer, cited, dropped := CiteWithin(a.Answer, b.CommunityIDs)
	answer = trimAnswer(answer)
	if a.Usefulness > 0 && answer == "" {
		return outputError("map output answer holds nothing but citations of communities outside its batch")
	}
	a.Answer, a.CitedCommunityIDs, a.DroppedCitations = answer, cited, dropped
	return nil
}

// supersededError is the error of a task whose run a newer plan of the same
// query id replaced (docs/contract.md#query-ids). It is KindNotFound: that run's plan is
// gone, and no retry brings it back.
func supersededError(queryID, runID string) error {
	return fmt.Errorf("run %s of query %s was replaced by a newer plan of that query id: %w", runID, queryID, ErrNotFound)
}

// cachedAnswer reads the cache, the answer renumbered to ids, the header
// ids of the prompt it answers (CachedAnswer.renumbered), with the cited
// ids that renumbering dropped. The cache only saves calls, so a cache
// that fails to answer, or holds an answer that breaks the map output
// rules, is logged and read as a miss: the model call it would have saved
// is made.
func (e *Engine) cachedAnswer(ctx context.Context, queryID, key string, ids []string) (MapAnswer, int, bool) {
	c, ok, err := e.Cache.CachedMapAnswer(ctx, key)
	if err == nil && ok {
		err = c.check()
	}
	answer, dropped := "", 0
	if err == nil && ok {
		answer, dropped, err = c.renumbered(ids)
	}
	if err != nil {
		e.logger().LogAttrs(ctx, slogError, "map cache read failed", slog.String("queryId", queryID), slog.String("error", err.Error()))
		return MapAnswer{}, 0, false
	}
	return MapAnswer{Answer: answer, Usefulness: c.Usefulness}, dropped, ok
}

// cacheAnswer writes the cache; a failed write costs a later run a call,
// not this run its answer, so it is logged and not returned.
func (e *Engine) cacheAnswer(ctx context.Context, queryID, key string, a CachedAnswer) {
	if err := e.Cache.CacheMapAnswer(ctx, key, a); err != nil {
		e.logger().LogAttrs(ctx, slogError, "map cache write failed", slog.String("queryId", queryID), slog.String("error", err.Error()))
	}
}
