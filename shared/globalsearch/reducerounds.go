package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ReduceRound is what PlanReduceRound decided: Groups > 0 is round Round
// to run, with that many groups; Groups 0 is "go to Reduce", Round then
// being the rounds run before it.
type ReduceRound struct {
	Round  int `json:"round"`
	Groups int `json:"groups"`
}

// IntermediateResponseType is the form a group's call is asked for: the
// intermediate prompt fixes it, the final call's is the request's.
const IntermediateResponseType = "one paragraph"

// PlanReduceRound is the step between reduce rounds
// (docs/contract.md#reduce-rounds): it reads the run's map answers (minus
// failures, as Reduce does) and the group answers so far. In single mode,
// or once one reduce prompt holds the latest candidates, it returns
// Groups 0 ("go to Reduce"); otherwise it saves the next round's groups
// and returns their round and count. A superseded or cancelled run is
// refused (KindNotFound) before anything is written.
func (e *Engine) PlanReduceRound(ctx context.Context, queryID, runID string, failures []BatchFailure) (ReduceRound, error) {
	r, err := e.loadReduce(ctx, queryID, runID, failures)
	if err != nil {
		return ReduceRound{}, err
	}
	if reduceModeOf(r.plan.Params) != ReduceModeTree || len(r.answers) == 0 {
		return ReduceRound{}, nil
	}
	if err := e.refuseCancelled(ctx, queryID, r.plan.RunID); err != nil {
		return ReduceRound{}, err
	}
	t, err := e.replay(ctx, r)
	if err != nil {
		return ReduceRound{}, err
	}
	if len(t.next) == 0 {
		return ReduceRound{Round: len(t.rounds)}, nil
	}
	if err := e.Runs.SaveReduceGroups(ctx, queryID, r.plan.RunID, t.next); err != nil {
		return ReduceRound{}, fmt.Errorf("save reduce round %d of %s: %w", t.next[0].Round, queryID, err)
	}
	e.logger().LogAttrs(ctx, slogInfo, "reduce round planned", stepAttrs(queryID, "reduce", r.start,
		"round", t.next[0].Round, "groups", len(t.next), "status", "ok")...)
	return ReduceRound{Round: t.next[0].Round, Groups: len(t.next)}, nil
}

// replay reads the run's group answers and replays its rounds under the
// run's prompts, budget and model-call ceiling.
func (e *Engine) replay(ctx context.Context, r *reduceRun) (tree, error) {
	stored, err := e.Runs.GroupAnswers(ctx, r.plan.Params.QueryID, r.plan.RunID)
	if err != nil {
		return tree{}, fmt.Errorf("load group answers of %s: %w", r.plan.Params.QueryID, err)
	}
	return replayTree(r.answers, stored, e.treeLimits(r)), nil
}

// treeLimits are the limits of r's rounds: the final and intermediate
// prompts at the reduce budget, and the calls the run has left once its
// rating and map calls are counted.
func (e *Engine) treeLimits(r *reduceRun) treeLimits {
	p := r.plan.Params
	d := r.res.Diagnostics
	return treeLimits{
		final:     newFitter(r.counter, e.prompts().Reduce.WithResponseType(p.ResponseType).Skeleton(p.Query), p.ReducePromptBudget()),
		round:     newFitter(r.counter, e.prompts().Round.Skeleton(p.Query), p.ReducePromptBudget()),
		ceiling:   p.MaxModelCalls > 0,
		callsLeft: p.MaxModelCalls - d.Map.ModelCalls - d.Selection.RatingCalls,
	}
}

// refuseCancelled refuses a step of a run whose result a caller cancelled
// (docs/contract.md#cancel) before it calls a model or writes.
func (e *Engine) refuseCancelled(ctx context.Context, queryID, runID string) error {
	res, err := e.Runs.Result(ctx, queryID)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("load result of %s: %w", queryID, err)
	case res.Status == StatusCancelled:
		return fmt.Errorf("run %s of query %s was cancelled: %w", runID, queryID, ErrNotFound)
	}
	return nil
}

// ReduceGroupAttempt makes one model attempt at one group of a reduce
// round with the intermediate prompt and records it (AddGroupAnswer): the
// call is counted before it is made, so a call that fails or times out
// still counts. The answer's marks are held to the ids its group's
// candidates name (docs/contract.md#reduce-rounds). An error means the
// caller may try again; a group of a superseded or cancelled run is
// refused (KindNotFound) before any call.
func (e *Engine) ReduceGroupAttempt(ctx context.Context, queryID, runID string, round, index, attempt int) error {
	start := time.Now()
	if err := CheckGroupKey(queryID, round, index); err != nil {
		return err
	}
	p, err := e.Runs.Request(ctx, queryID)
	if err != nil {
		return fmt.Errorf("load request of %s: %w", queryID, err)
	}
	if err := e.refuseCancelled(ctx, queryID, runID); err != nil {
		return err
	}
	g, err := e.Runs.ReduceGroup(ctx, queryID, runID, round, index)
	if err != nil {
		return fmt.Errorf("load reduce group %d of round %d of %s: %w", index, round, queryID, err)
	}
	if err := e.Runs.AddGroupAnswer(ctx, queryID, runID, GroupAnswer{Round: round, Index: index, Calls: 1}); err != nil {
		return fmt.Errorf("count call of reduce group %d of round %d of %s: %w", index, round, queryID, err)
	}
	got, err := e.reduceGroup(ctx, p, g)
	if serr := e.Runs.AddGroupAnswer(context.WithoutCancel(ctx), queryID, runID, got); serr != nil && err == nil {
		err = fmt.Errorf("save reduce group %d of round %d of %s: %w", index, round, queryID, serr)
	}
	status := "ok"
	if err != nil {
		status = "failed"
	}
	e.logger().LogAttrs(ctx, slogInfo, "reduce group attempt", stepAttrs(queryID, "reduce", start,
		"runId", runID, "round", round, "group", index, "attempt", attempt, "candidates", len(g.Candidates), "status", status)...)
	return err
}

// reduceGroup makes the call of group g and returns what to record of it
// (its call already counted): the answer, or the error.
func (e *Engine) reduceGroup(ctx context.Context, p Params, g ReduceGroup) (GroupAnswer, error) {
	content := groupContent(g)
	resp, err := e.reduceModel().Complete(ctx, p.WithCallSettings(ModelRequest{
		Stage: StageReduce, Query: p.Query, Content: content,
		Prompt:     e.prompts().Round.Render(p.Query, content),
		System:     e.prompts().System,
		Candidates: g.Candidates,
		MaxTokens:  p.ReduceOutputReserve, ResponseType: IntermediateResponseType,
	}))
	got := GroupAnswer{Round: g.Round, Index: g.Index, InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens}
	var answer string
	if err == nil {
		answer, err = ParseReduceOutput(resp.Text)
	}
	if err != nil {
		got.Error, got.ErrorKind = err.Error(), KindOf(err)
		return got, fmt.Errorf("reduce group %d of round %d: %w", g.Index, g.Round, err)
	}
	got.Done, got.Usefulness = true, groupScore(g)
	got.Answer, got.CitedCommunityIDs, got.InvalidCitations = CiteWithin(answer, groupIDs(g))
	return got, nil
}
