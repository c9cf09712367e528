package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reject records a request that failed validation as a failed run under
// p.QueryID, so a caller polling that id learns why. p is what could be read
// of the request (its id and query). An invalid request never writes under
// an id it did not create (docs/contract.md#query-ids): the failure is saved only when this
// call records p as the id's request, or finds that same rejected request
// there (a retried call). owner is as in PrepareAs. It returns that
// result, if any, and cause.
func (e *Engine) Reject(ctx context.Context, p Params, owner string, cause error) (Result, error) {
	_, _, err := ClaimRequest(ctx, e.Runs, p, owner)
	switch {
	case KindOf(err) == KindConflict:
		return Result{}, cause
	case err != nil:
		return Result{}, fmt.Errorf("%w (and recording the failure: %v)", cause, err)
	}
	return e.failRun(ctx, p, "", cause)
}

// failRun records a run that cannot go on (invalid input found while
// planning, a corrupt index, a plan too large) as failed, so the runs store
// says failed before the run ends, and returns that result with cause.
// Other errors may pass on a retry and are returned without a result. The
// caller owns the query id (it created or repeated its request), so the
// result is saved unconditionally, and runs before it can no longer save
// theirs. runID is the run that failed once it has saved a plan ("" before
// that): the calls it made, a dynamic selection's rating calls, are in the
// result (docs/contract.md#cancel).
func (e *Engine) failRun(ctx context.Context, p Params, runID string, cause error) (Result, error) {
	var rating *RatingError // its calls were tried already (docs/contract.md#dynamic-selection)
	switch KindOf(cause) {
	case KindInvalidInput, KindCorruptIndex, KindPlanTooLarge:
	default:
		if !errors.As(cause, &rating) {
			return Result{}, cause
		}
	}
	res := FailedResult(p.QueryID, cause.Error(), e.now())
	res.Namespace, res.Query, res.CommunityLevel = p.Namespace, p.Query, p.CommunityLevel
	res.Diagnostics.ShuffleSeed = p.ShuffleSeed
	if runID != "" {
		res = res.WithSpend(e.runSpend(ctx, p.QueryID, runID))
	}
	if err := e.Runs.SaveResult(saveContext(ctx, StatusFailed), res, ""); err != nil {
		return res, fmt.Errorf("%w (and saving the failed result: %v)", cause, err)
	}
	return res, cause
}

// FailedResult is the result of a run that failed before its map stage
// produced anything: every failure path that has no plan to report on
// (prepare refusing a run, a failure the state machine recorded itself)
// builds it here, so they all read alike (empty lists, never null).
func FailedResult(queryID, message string, at time.Time) Result {
	return Result{
		QueryID: queryID, Status: StatusFailed, Error: message,
		SelectedMapAnswers: []SelectedAnswer{}, MapErrors: []BatchFailure{}, Citations: []Citation{},
		Diagnostics: Diagnostics{StartedAt: at, FinishedAt: at, Coverage: Coverage{MapAnswers: &MapAnswerCoverage{}},
			Timeline: Timeline{StartedAt: at}},
	}
}

// CancelledResult is the result of a run a caller stopped before it saved
// one (docs/contract.md#cancel): it reads like a failed result, with its
// own status, so that every client reads the same fields.
func CancelledResult(p Params, at time.Time) Result {
	res := FailedResult(p.QueryID, "the run was cancelled before it saved a result", at)
	res.Status = StatusCancelled
	res.Namespace, res.Query, res.CommunityLevel = p.Namespace, p.Query, p.CommunityLevel
	res.Diagnostics.ShuffleSeed = p.ShuffleSeed
	return res
}

// FailReduce records a run whose reduce step failed its last attempt: the
// result says failed with cause, beside everything the map stage produced.
// It returns that result and cause.
func (e *Engine) FailReduce(ctx context.Context, queryID, runID string, failures []BatchFailure, cause error) (Result, error) {
	ctx = saveContext(ctx, StatusFailed)
	r, err := e.loadReduce(ctx, queryID, runID, failures)
	if err != nil {
		return Result{}, fmt.Errorf("%w (and recording the failure: %w)", cause, err)
	}
	calls, err := e.Runs.ReduceCalls(ctx, queryID, r.plan.RunID)
	if err != nil {
		return Result{}, fmt.Errorf("%w (and recording the failure: %w)", cause, err)
	}
	// This step records the failure, not the attempts that made the calls:
	// its own time is not reduce's (docs/contract.md#timeline).
	r.began = time.Time{}
	if err := e.failedTree(ctx, r, calls); err != nil {
		return Result{}, fmt.Errorf("%w (and recording the failure: %w)", cause, err)
	}
	return e.finishReduce(ctx, r, StatusFailed, cause)
}

// finishReduce completes the result's totals, saves it and logs the step.
func (e *Engine) finishReduce(ctx context.Context, r *reduceRun, status Status, runErr error) (Result, error) {
	res := &r.res
	res.Status = status
	if runErr != nil {
		res.Answer, res.Error = "", runErr.Error()
	}
	d := &res.Diagnostics
	d.FinishedAt = e.now()
	d.Map.AutoConcurrency = e.autoReport
	d.Timeline = timelineOf(r.plan, r.answers, r.began, d.FinishedAt)
	p := r.plan.Params
	callSettingsReport(&d.Map, e.Model, "map", p.PromptCache, p.MapServiceTier)
	callSettingsReport(&d.Reduce, e.reduceModel(), "reduce", p.PromptCache, p.ReduceServiceTier)
	d.addTotals(e.Prices)
	d.Notes = e.modelNotes(ctx, res.QueryID)
	d.Coverage.MapAnswers = mapCoverage(r.answers, len(res.MapErrors), r.reachedReduce())
	d.Coverage.MapAnswers.InRounds = r.tree
	if d.Reduce.ModelCalls > 0 {
		d.Reduce.Rounds = max(1, len(d.Reduce.PerRound))
	}
	d.Coverage.CitedCommunities, d.Coverage.CitedDocuments = citedCoverage(res.Citations)
	e.recordUsage(r)
	if err := e.Runs.SaveResult(saveContext(ctx, status), *res, r.plan.RunID); err != nil {
		return *res, fmt.Errorf("save result of %s: %w", res.QueryID, err)
	}
	e.recordStanding(ctx, r, status)
	e.logger().LogAttrs(ctx, slogInfo, "reduced", stepAttrs(res.QueryID, "reduce", r.start,
		"attempts", d.Reduce.ModelCalls, "tokensIn", d.Reduce.InputTokens, "tokensOut", d.Reduce.OutputTokens,
		"selected", d.SelectedAnswerCount, "status", string(status))...)
	return *res, runErr
}

// mapStage is the result of plan's map stage as far as the store holds it:
// run's answers, less those of batches the map stage reported failed
// (withoutReported), with the failures and the tallies of the attempts no
// kept answer holds. It returns the answers it kept.
func (e *Engine) mapStage(ctx context.Context, plan Plan, answers []MapAnswer, failures []BatchFailure) ([]MapAnswer, Result, error) {
	attempts, err := e.Runs.MapAttempts(ctx, plan.Params.QueryID, plan.RunID)
	if err != nil {
		return nil, Result{}, fmt.Errorf("load map attempts of %s: %w", plan.Params.QueryID, err)
	}
	answers, dropped := withoutReported(answers, failures)
	return answers, newResult(plan, answers, failures, append(attempts, dropped...)), nil
}

// newResult fills what every result says about its plan and map stage:
// answers, the failures the map stage reported, and attempts, the
// tallies of the attempts no answer holds (docs/contract.md#failed-attempts).
//
// Every attempt's tokens are counted once, from its answer or its tally.
// Calls are counted once too: an answer's Attempts holds the attempts
// before it; a failed batch's calls are the attempts the map stage
// reported, or its tally's calls when these are more (a batch with no
// report, whose iteration was lost or whose run stopped: RunSpend).
func newResult(plan Plan, answers []MapAnswer, failures []BatchFailure, attempts []MapAttempt) Result {
	p := plan.Params
	res := Result{
		QueryID: p.QueryID, Namespace: p.Namespace, Query: p.Query, CommunityLevel: p.CommunityLevel,
		SelectedMapAnswers: []SelectedAnswer{},
		Citations:          []Citation{},
		MapErrors:          reconcileFailures(plan, answers, failures),
		Diagnostics: Diagnostics{
			SummaryCount:    plan.SummaryCount,
			BatchCount:      len(plan.Batches),
			Batches:         make([]BatchSummary, len(plan.Batches)),
			MapScores:       make([]MapScore, len(answers)),
			ShuffleSeed:     p.ShuffleSeed,
			OrphanClaims:    plan.OrphanClaims,
			MissingChunks:   plan.MissingChunks,
			AvailableLevels: plan.AvailableLevels,
			Coverage:        plan.Coverage,
			StartedAt:       plan.CreatedAt,
			AutoLevel:       plan.AutoLevel,
			MapConcurrency:  plan.MapConcurrency,
			ETASeconds:      plan.ETASeconds,
		},
	}
	res.FailedMapBatches = len(res.MapErrors)
	res.Diagnostics.SeedDerivation = plan.SeedDerivation
	if seedPolicyOf(p) == SeedPolicyNamespace {
		res.Diagnostics.SeedPolicy = SeedPolicyNamespace
	}
	if plan.Selection != nil {
		res.Diagnostics.Selection = *plan.Selection
	}
	res.Diagnostics.EmptyNamespace, res.Diagnostics.AvailableNamespaces = plan.EmptyNamespace, plan.AvailableNamespaces
	for i, b := range plan.Batches {
		res.Diagnostics.Batches[i] = BatchSummary{CommunityIDs: b.CommunityIDs, EstimatedTokens: b.EstimatedTokens}
	}
	usage := &res.Diagnostics.Map
	for i, a := range answers {
		res.Diagnostics.MapScores[i] = MapScore{BatchIndex: a.BatchIndex, Usefulness: a.Usefulness}
		usage.ModelCalls += a.Attempts
		if a.Cached {
			usage.CacheHits++
		}
		usage.InputTokens += a.InputTokens
		usage.OutputTokens += a.OutputTokens
		usage.CacheReadInputTokens += a.CacheReadInputTokens
		usage.CacheWriteInputTokens += a.CacheWriteInputTokens
		usage.DroppedCitations += a.DroppedCitations
	}
	tallied := make(map[int]int, len(attempts))
	for _, a := range attempts {
		tallied[a.BatchIndex] += a.Calls
		usage.InputTokens += a.InputTokens
		usage.OutputTokens += a.OutputTokens
		usage.CacheReadInputTokens += a.CacheReadInputTokens
		usage.CacheWriteInputTokens += a.CacheWriteInputTokens
	}
	for _, f := range res.MapErrors {
		usage.ModelCalls += max(f.Attempts, tallied[f.BatchIndex])
	}
	res.Diagnostics.Changes = plan.Changes.withMapStage(len(plan.Batches), usage.CacheHits)
	return res
}

// withoutReported drops the answers of batches reported failed. The map
// stage's report of this run is the authority: an answer stored for a batch
// it reports failed (an attempt whose success never reached the state
// machine) must not turn a failed batch, or a failed search, into a success.
// Its call and tokens were spent all the same: it returns them as attempts
// no kept answer holds.
func withoutReported(answers []MapAnswer, reported []BatchFailure) ([]MapAnswer, []MapAttempt) {
	if len(reported) == 0 {
		return answers, nil
	}
	failed := make(map[int]bool, len(reported))
	for _, f := range reported {
		failed[f.BatchIndex] = true
	}
	kept := answers[:0:0]
	var dropped []MapAttempt
	for _, a := range answers {
		if !failed[a.BatchIndex] {
			kept = append(kept, a)
			continue
		}
		calls := 1
		if a.Cached {
			calls = 0
		}
		dropped = append(dropped, MapAttempt{BatchIndex: a.BatchIndex, Calls: calls, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
			CacheReadInputTokens: a.CacheReadInputTokens, CacheWriteInputTokens: a.CacheWriteInputTokens})
	}
	return kept, dropped
}

// reconcileFailures returns one failure per batch that has no answer, in
// batch order, with the batch's community ids. A batch with neither an
// answer nor a reported failure (a lost iteration) counts as failed too,
// so a result never claims more than the map stage delivered.
func reconcileFailures(plan Plan, answers []MapAnswer, reported []BatchFailure) []BatchFailure {
	answered := make(map[int]bool, len(answers))
	for _, a := range answers {
		answered[a.BatchIndex] = true
	}
	byIndex := map[int]BatchFailure{}
	for _, f := range reported {
		byIndex[f.BatchIndex] = f
	}
	out := []BatchFailure{}
	for _, b := range plan.Batches {
		if answered[b.Index] {
			continue
		}
		f, ok := byIndex[b.Index]
		if !ok {
			f = BatchFailure{BatchIndex: b.Index, Message: "no map answer was recorded for this batch"}
		}
		f.CommunityIDs = b.CommunityIDs
		out = append(out, f)
	}
	return out
}

// failedSaveTimeout bounds the write of a failed result made after the
// run's own context has ended.
const failedSaveTimeout = 5 * time.Second

// saveContext is the context a result is saved with. A failed result is
// often saved because the run's context just expired (a Lambda deadline, a
// cancelled CLI run), yet the runs store must still say failed, so that write
// gets a short context of its own.
func saveContext(ctx context.Context, status Status) context.Context {
	if status != StatusFailed || ctx.Err() == nil {
		return ctx
	}
	bounded, cancel := context.WithTimeout(context.WithoutCancel(ctx), failedSaveTimeout)
	context.AfterFunc(bounded, cancel)
	return bounded
}
