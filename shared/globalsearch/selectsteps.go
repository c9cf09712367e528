package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A dynamic selection runs in steps that one process and the deployed state
// machine both take (docs/contract.md#dynamic-selection): prepare starts the
// run and saves the first round's rating batches, RateBatch makes one
// attempt at one rating batch, and each round's end (advance) reads the
// ratings back from the runs store and saves the next round or the plan.

// selection is a run's dynamic selection between its steps.
type selection struct {
	p            Params
	owner, runID string
	h            *hierarchy
	// version is the namespace version the run started on: every step
	// reads it or fails (pinnedIndex).
	version string
	// base is the report as the run started it: the plan-time figures.
	base      SelectionReport
	createdAt time.Time
}

// prepareSelection is prepare for a dynamic selection: it starts the run,
// then, unless the rounds are the state machine's (RateInSteps), rates
// round after round with the run's own concurrency and RatingAttempts per
// batch, and saves the plan of what it selected.
func (e *Engine) prepareSelection(ctx context.Context, p Params, owner string) (PreparedRun, Result, error) {
	runID := "" // until the run's first plan is saved, it has spent nothing
	failed := func(err error) (PreparedRun, Result, error) {
		res, err := e.failRun(context.WithoutCancel(ctx), p, runID, err)
		return PreparedRun{}, res, err
	}
	if e.RatingModel == nil && e.Model == nil && !e.RateInSteps {
		return failed(Errorf(KindInvalidInput, `selection "dynamic" needs a model to rate communities, and this step has none: select by communityLevel here, or run the search in one process`))
	}
	started := e.now()
	leaf, report, err := e.leafReference(ctx, p)
	if err != nil {
		return failed(err)
	}
	if leaf.EmptyNamespace {
		out, err := e.savePlan(ctx, leaf, NewRunID(), owner)
		return out, Result{}, err
	}
	sel := &selection{p: p, owner: owner, runID: NewRunID(), base: report, createdAt: started}
	if sel.h, sel.version, err = e.openForestAt(ctx, p, ""); err != nil {
		return failed(err)
	}
	if err := e.checkRatingCeiling(p, sel.h, &sel.base); err != nil {
		return failed(err)
	}
	if err := e.checkRatingSteps(sel.h, sel.base); err != nil {
		return failed(err)
	}
	// The run starts before its first rating call, so that each call is
	// saved under it: a plan of no batches, whose report the later steps
	// read (docs/contract.md#dynamic-selection).
	start := Plan{Params: p, RunID: sel.runID, Owner: owner, CreatedAt: started, Selection: &sel.base, IndexVersion: sel.version}
	if err := e.Runs.SavePlan(ctx, start); err != nil {
		return PreparedRun{}, Result{}, fmt.Errorf("save plan of %s: %w", p.QueryID, err)
	}
	runID = sel.runID
	out, err := e.advance(ctx, sel, 0)
	if err == nil && !e.RateInSteps {
		out, err = e.driveSelection(ctx, sel, out)
	}
	if err != nil {
		return failed(err)
	}
	return out, Result{}, nil
}

// checkRatingSteps refuses, before any call, a dynamic selection whose
// rating batches or rounds could pass what the deployed state machine runs
// (MaxRatingBatches, MaxRatingRounds; docs/contract.md#plan-limits).
func (e *Engine) checkRatingSteps(h *hierarchy, report SelectionReport) error {
	if batches := report.mostRatingBatches(); e.MaxRatingBatches > 0 && batches > e.MaxRatingBatches {
		return Errorf(KindPlanTooLarge,
			"dynamic selection may need up to %d rating batches (every community relevant), but the state machine rates at most %d: raise mapTokenBudget, or select by communityLevel",
			batches, e.MaxRatingBatches)
	}
	if e.MaxRatingRounds <= 0 {
		return nil
	}
	rounds := 0
	for round := h.firstRound(); len(round) > 0; round = h.nextRound(round, func(string) bool { return true }) {
		rounds++
	}
	if rounds > e.MaxRatingRounds {
		return Errorf(KindPlanTooLarge,
			"dynamic selection may rate %d levels of communities, but the state machine rates at most %d rounds: select by communityLevel",
			rounds, e.MaxRatingRounds)
	}
	return nil
}

// driveSelection is the one-process loop over the rounds: each round's
// batches at most mapConcurrency at once, RatingAttempts each, then the
// round's end.
func (e *Engine) driveSelection(ctx context.Context, sel *selection, out PreparedRun) (PreparedRun, error) {
	for out.Round > 0 {
		round := out.Round
		forEachBatch(ctx, out.RatingBatches, out.MapConcurrency, RatingAttempts, func(ctx context.Context, i, attempt int) error {
			_, err := e.RateBatch(ctx, sel.p.QueryID, sel.runID, round, i, attempt)
			return err
		})
		if err := ctx.Err(); err != nil {
			return PreparedRun{}, err
		}
		var err error
		if out, err = e.advance(ctx, sel, round); err != nil {
			return PreparedRun{}, err
		}
	}
	return out, nil
}

// SelectNext is the end of rating round round of run runID (the deployed
// SelectNext step): it reads the run's ratings and saves the next round's
// rating batches, or the plan of the communities selected once no round is
// left. owner is the execution, as for PrepareAs. A failure that ends the
// run (a first round none of whose batches was rated, a plan too large) is
// recorded as a failed result, as prepare records one.
func (e *Engine) SelectNext(ctx context.Context, queryID, runID, owner string, round int) (PreparedRun, error) {
	if queryID == "" || runID == "" || round < 1 {
		return PreparedRun{}, Errorf(KindInvalidInput, "the end of a rating round needs a queryId, a runId and a round from 1")
	}
	plan, err := e.Runs.PlanMeta(ctx, queryID)
	if err != nil {
		return PreparedRun{}, fmt.Errorf("load plan of %s: %w", queryID, err)
	}
	if plan.RunID != runID || plan.Selection == nil {
		return PreparedRun{}, supersededError(queryID, runID)
	}
	if len(plan.Batches) > 0 || plan.Selection.MapBatches > 0 {
		// A retried last step: its plan is saved already.
		return PreparedRun{QueryID: queryID, RunID: runID, BatchCount: len(plan.Batches),
			RatingBatches: plan.Selection.mostRatingBatches(), ReduceGroups: e.worstReduce(plan).calls(),
			MapConcurrency: plan.MapConcurrency, ETASeconds: plan.ETASeconds}, nil
	}
	if owner == "" {
		owner = queryID
	}
	sel := &selection{p: plan.Params, owner: owner, runID: runID, base: *plan.Selection, createdAt: plan.CreatedAt, version: plan.IndexVersion}
	if sel.h, _, err = e.openForestAt(ctx, sel.p, sel.version); err == nil {
		var out PreparedRun
		if out, err = e.advance(ctx, sel, round); err == nil {
			return out, nil
		}
	}
	_, err = e.failRun(context.WithoutCancel(ctx), sel.p, runID, err)
	return PreparedRun{}, err
}

// advance ends round done (0: the run just started): it replays the
// run's rounds from its ratings, then saves the rating batches of the next
// round, or plans and saves the selected communities when none is left.
func (e *Engine) advance(ctx context.Context, sel *selection, done int) (PreparedRun, error) {
	var ratings []Rating
	if done > 0 {
		var err error
		if ratings, err = e.Runs.Ratings(ctx, sel.p.QueryID, sel.runID); err != nil {
			return PreparedRun{}, fmt.Errorf("load ratings of %s: %w", sel.p.QueryID, err)
		}
	}
	report := sel.base
	scores, next, err := e.replaySelection(ctx, sel.p, sel.h, ratings, done, &report)
	if err != nil {
		return PreparedRun{}, err
	}
	if len(next) == 0 {
		return e.finishSelection(ctx, sel, report, scores)
	}
	packed, err := packRatings(sel.p, sel.h, next)
	if err != nil {
		return PreparedRun{}, err
	}
	if err := checkRoundCeiling(sel.p, done+1, len(packed), report.RatingCalls); err != nil {
		return PreparedRun{}, err
	}
	batches := make([]RatingBatch, len(packed))
	for i, b := range packed {
		batches[i] = RatingBatch{Round: done + 1, Index: i, CommunityIDs: b.IDs, Content: b.Content}
	}
	if err := e.Runs.SaveRatingBatches(ctx, sel.p.QueryID, sel.runID, batches); err != nil {
		return PreparedRun{}, fmt.Errorf("save rating batches of %s: %w", sel.p.QueryID, err)
	}
	// A round's rating calls go to the map model under its quota, so they
	// are sized as map calls are (docs/contract.md#quota).
	tokens := make([]int, len(packed))
	for i, b := range packed {
		tokens[i] = b.Tokens
	}
	return PreparedRun{QueryID: sel.p.QueryID, RunID: sel.runID, Round: done + 1, RatingBatches: len(packed),
		MapConcurrency: e.sizeCalls(sel.p, tokens).MapConcurrency}, nil
}

// checkRoundCeiling refuses a round whose calls, beside the made ones,
// could pass the run's ceiling with one map batch and the reduce
// (docs/contract.md#dynamic-selection), before it calls anything.
func checkRoundCeiling(p Params, round, batches, made int) error {
	if p.MaxModelCalls > 0 && made+RatingAttempts*batches+MostModelCalls(1) > p.MaxModelCalls {
		return Errorf(KindPlanTooLarge,
			"rating round %d needs up to %d model calls beside the %d made, which passes this run's %d: raise maxModelCalls or ratingThreshold",
			round, RatingAttempts*batches, made, p.MaxModelCalls)
	}
	return nil
}

// finishSelection plans the communities the scores select, as any plan,
// and saves it as the run's plan.
func (e *Engine) finishSelection(ctx context.Context, sel *selection, report SelectionReport, scores map[string]float64) (PreparedRun, error) {
	clock := time.Now()
	p := sel.p
	selected := sel.h.dynamicSelection(func(id string) bool {
		s, ok := scores[id]
		return ok && s >= float64(p.ratingThreshold())
	})
	pinned := *e
	pinned.Index = pinnedIndex{Index: e.Index, version: sel.version}
	plan, err := pinned.planWith(ctx, p, pickIDs(selected), report.RatingCalls)
	if err != nil {
		return PreparedRun{}, err
	}
	if err := e.checkSelectedCost(p, plan, report); err != nil {
		return PreparedRun{}, err
	}
	rounds := e.worstReduce(plan)
	if err := e.checkReduceSteps(rounds, report.mostRatingBatches()); err != nil {
		return PreparedRun{}, err
	}
	report.Selected = plan.SummaryCount
	report.MapBatches, report.MapInputTokens = len(plan.Batches), plan.MapInputTokens()
	plan.Selection = &report
	plan.CreatedAt = sel.createdAt
	plan.Continues, plan.IndexVersion = true, sel.version
	e.logger().LogAttrs(ctx, slogInfo, "selected", stepAttrs(p.QueryID, "select", clock,
		"rated", report.Rated, "ratingCalls", report.RatingCalls, "selected", report.Selected,
		"mapInputTokens", report.MapInputTokens, "leafMapInputTokens", report.LeafMapInputTokens, "status", "ok")...)
	out, err := e.savePlan(ctx, plan, sel.runID, sel.owner)
	out.RatingBatches, out.ReduceGroups = report.mostRatingBatches(), rounds.calls()
	return out, err
}

// replaySelection files the ratings of rounds 1 to done into scores and
// report, round by round as they were rated, and returns the communities
// of the next round. A batch with no rating that succeeded leaves its
// communities not rated; a first round none of whose batches was rated
// fails the run, since nothing could be selected.
func (e *Engine) replaySelection(ctx context.Context, p Params, h *hierarchy, ratings []Rating, done int, report *SelectionReport) (map[string]float64, []string, error) {
	got := map[[2]int]Rating{}
	for _, r := range ratings {
		got[[2]int{r.Round, r.BatchIndex}] = r
	}
	scores := map[string]float64{}
	relevant := func(id string) bool {
		s, ok := scores[id]
		return ok && s >= float64(p.ratingThreshold())
	}
	round := h.firstRound()
	for r := 1; r <= done && len(round) > 0; r++ {
		packed, err := packRatings(p, h, round)
		if err != nil {
			return nil, nil, err
		}
		report.Rounds++
		failed, last := 0, Errorf(KindModel, "no attempt of its batches was recorded")
		for i := range packed {
			a := got[[2]int{r, i}]
			report.RatingCalls += a.Calls
			report.RatingInputTokens += a.InputTokens
			report.RatingOutputTokens += a.OutputTokens
			if !a.Rated {
				failed++
				if a.Error != "" {
					last = &Error{Kind: a.ErrorKind, Err: errors.New(a.Error)}
				}
				continue
			}
			report.UnknownIDs += a.UnknownIDs
			for id, s := range a.Scores {
				// A summary split over batches is rated by its best part.
				scores[id] = max(scores[id], s)
			}
		}
		report.FailedRatingBatches += failed
		if r == 1 && failed > 0 && failed == len(packed) {
			return nil, nil, &RatingError{Err: fmt.Errorf("every rating batch of the root communities failed, so no community could be selected: %w", last)}
		}
		e.fileRound(ctx, p, round, len(packed), r == done, relevant, scores, report)
		round = h.nextRound(round, relevant)
	}
	return scores, round, nil
}

// fileRound counts a round's rated and relevant communities, and logs the
// round the step just ended.
func (e *Engine) fileRound(ctx context.Context, p Params, round []string, batches int, log bool, relevant func(string) bool, scores map[string]float64, report *SelectionReport) {
	rated, relevantN := 0, 0
	for _, id := range round {
		if _, ok := scores[id]; ok {
			rated++
			if relevant(id) {
				relevantN++
			}
		}
	}
	report.Rated += rated
	report.NotRated += len(round) - rated
	if log {
		e.logger().LogAttrs(ctx, slogInfo, "rated", stepAttrs(p.QueryID, "select", time.Now(),
			"round", report.Rounds, "communities", len(round), "batches", batches, "relevant", relevantN, "status", "ok")...)
	}
}

// RateBatch makes exactly one attempt at rating batch index of round round
// of run runID and saves what it got (docs/contract.md#dynamic-selection):
// the deployed Rate task's second attempt is the state machine's Retry,
// one process's is driveSelection's. A batch of a run that is no longer
// the query id's current one is refused (KindNotFound).
func (e *Engine) RateBatch(ctx context.Context, queryID, runID string, round, index, attempt int) (Rating, error) {
	start := time.Now()
	if err := CheckRatingKey(queryID, round, index); err != nil {
		return Rating{}, err
	}
	// Reads the map function may make (docs/contract.md#tables): the
	// request and, of the current run only, the batch.
	p, err := e.Runs.Request(ctx, queryID)
	if err != nil {
		return Rating{}, fmt.Errorf("load request of %s: %w", queryID, err)
	}
	b, err := e.Runs.RatingBatch(ctx, queryID, runID, round, index)
	if err != nil {
		return Rating{}, fmt.Errorf("load rating batch %d of round %d of %s: %w", index, round, queryID, err)
	}
	r, resp, err := e.rateBatch(ctx, p, b.Content, b.CommunityIDs)
	got := Rating{Round: round, BatchIndex: index, Calls: 1, InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens}
	if err == nil {
		got.Rated, got.Scores, got.UnknownIDs = true, r.Scores, r.Unknown
	} else {
		got.Error, got.ErrorKind = err.Error(), KindOf(err)
	}
	if serr := e.Runs.AddRating(context.WithoutCancel(ctx), queryID, runID, got); serr != nil && err == nil {
		err = fmt.Errorf("save rating batch %d of round %d of %s: %w", index, round, queryID, serr)
	}
	status := "ok"
	if err != nil {
		status = "failed"
	}
	e.logger().LogAttrs(ctx, slogInfo, "rating batch attempt", stepAttrs(queryID, "select", start,
		"runId", runID, "round", round, "batch", index, "attempt", attempt, "status", status)...)
	return got, err
}
