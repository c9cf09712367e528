package globalsearch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// ReduceRoundUsage is one round of a tree reduce as the result reports it
// (docs/contract.md#reduce-rounds): the intermediate rounds, then the
// final call as a round of one group.
type ReduceRoundUsage struct {
	Round        int `json:"round"`
	Groups       int `json:"groups"`
	Candidates   int `json:"candidates"`
	ModelCalls   int `json:"modelCalls"`
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	// DroppedCitations counts the ids the round's answers cited that
	// their group never saw (dropped from their marks).
	DroppedCitations int           `json:"droppedCitations,omitempty"`
	FailedGroups     []FailedGroup `json:"failedGroups,omitempty"`
}

// FailedGroup is a group of a round no attempt answered: the map answers
// it held reach no later round, so the result is partial.
type FailedGroup struct {
	Index   int    `json:"index"`
	Answers int    `json:"answers"`
	Error   string `json:"error"`
}

// applyTree adds the rounds of t to r's result: per-round usage, the
// reduce totals, the failed groups and what reached a reduce call. It
// returns how many groups failed.
func applyTree(r *reduceRun, t tree) int {
	d := &r.res.Diagnostics
	failed := 0
	for i, tr := range t.rounds {
		u := ReduceRoundUsage{Round: i + 1, Groups: len(tr.groups)}
		for _, g := range tr.groups {
			u.Candidates += len(g.Candidates)
			a := tr.answers[g.Index]
			u.ModelCalls += a.Calls
			u.InputTokens += a.InputTokens
			u.OutputTokens += a.OutputTokens
			u.DroppedCitations += a.InvalidCitations
			if !a.Done {
				msg := a.Error
				if msg == "" {
					msg = "no attempt at this group was recorded"
				}
				u.FailedGroups = append(u.FailedGroups, FailedGroup{Index: g.Index, Answers: g.AnswerCount, Error: msg})
			}
		}
		failed += len(u.FailedGroups)
		d.Reduce.PerRound = append(d.Reduce.PerRound, u)
		d.Reduce.ModelCalls += u.ModelCalls
		d.Reduce.InputTokens += u.InputTokens
		d.Reduce.OutputTokens += u.OutputTokens
		d.Reduce.DroppedCitations += u.DroppedCitations
	}
	r.tree, r.reached = true, usefulCount(r.answers)-t.skipped
	return failed
}

func usefulCount(answers []MapAnswer) int {
	n := 0
	for _, a := range answers {
		if a.Usefulness > 0 {
			n++
		}
	}
	return n
}

// finalRound adds the final call to the per-round usage of a tree
// reduce: its calls and tokens are the reduce stage's own.
func finalRound(r *reduceRun, calls, in, out int) {
	d := &r.res.Diagnostics.Reduce
	d.PerRound = append(d.PerRound, ReduceRoundUsage{Round: len(d.PerRound) + 1, Groups: 1, Candidates: r.selected,
		ModelCalls: calls, InputTokens: in, OutputTokens: out})
	d.ModelCalls += calls
	d.InputTokens += in
	d.OutputTokens += out
}

// selectTree is the final call's selection of a tree reduce: the
// skip-not-break rule over the last round's answers, as SelectAnswers
// reads map answers. It returns the selection, the content and the
// estimated tokens of the prompt.
func selectTree(f fitter, cands []treeCandidate) ([]treeCandidate, string, int) {
	groups, _ := f.groupTree(cands, f.sizes(cands))
	if len(groups) == 0 {
		return nil, "", 0
	}
	texts := make([]string, len(groups[0]))
	var sum tokens.Count
	for i, c := range groups[0] {
		texts[i] = c.Render()
		if i > 0 {
			sum = sum.Add(f.sep)
		}
		sum = sum.Add(f.prompt.Counter().Of(texts[i]))
	}
	return groups[0], strings.Join(texts, candidateSeparator), f.prompt.Tokens(sum)
}

// reduceTree is Reduce's final call after rounds
// (docs/contract.md#reduce-rounds): its candidates are the last round's
// answers, its citations are held to the ids they name, and a failed
// group makes the result partial.
func (e *Engine) reduceTree(ctx context.Context, r *reduceRun, t tree) (Result, error) {
	res, p := &r.res, r.plan.Params
	failedGroups := applyTree(r, t)
	// The rounds ran before this step: the reduce stage's time starts
	// where the map's ends (docs/contract.md#reduce-rounds).
	if !r.began.IsZero() {
		r.began = mapEnd(r.answers, r.began)
	}
	reducePrompt := e.prompts().Reduce.WithResponseType(p.ResponseType)
	f := newFitter(r.counter, reducePrompt.Skeleton(p.Query), p.ReducePromptBudget())
	selected, content, promptTokens := selectTree(f, t.final)
	r.selected = len(selected)
	res.Diagnostics.SelectedAnswerCount, res.Diagnostics.ReducePromptTokens = len(selected), promptTokens
	candidates := make([]Candidate, len(selected))
	shown := make([]MapAnswer, len(selected))
	for i, c := range selected {
		candidates[i], shown[i] = c.Candidate, MapAnswer{CommunityIDs: c.CommunityIDs}
		res.SelectedMapAnswers = append(res.SelectedMapAnswers, SelectedAnswer{Answer: c.Answer, Usefulness: c.Usefulness, CommunityIDs: c.CommunityIDs})
	}
	if len(selected) == 0 {
		finalRound(r, 0, 0, 0)
		return e.finishReduce(ctx, r, StatusFailed, Errorf(KindModel, "every group of reduce round %d failed, so no answer reached the final call", len(t.rounds)))
	}
	calls, err := e.Runs.AddReduceCall(ctx, p.QueryID, r.plan.RunID)
	if err != nil {
		return Result{}, fmt.Errorf("count reduce call of %s: %w", p.QueryID, err)
	}
	// The final call streams its answer as single mode's does
	// (docs/contract.md#answer-stream); the rounds' calls do not, since
	// their answers are no reader's.
	resp, err := e.completeReduce(ctx, p.QueryID, calls, p.WithCallSettings(ModelRequest{
		Stage: StageReduce, Query: p.Query, Content: content,
		Prompt: reducePrompt.Render(p.Query, content), System: e.prompts().System,
		Candidates: candidates, MaxTokens: p.ReduceOutputReserve, ResponseType: p.ResponseType,
	}))
	if err == nil {
		res.Answer, err = ParseReduceOutput(resp.Text)
	}
	if err != nil {
		err = fmt.Errorf("reduce attempt %d: %w", calls, err)
		e.logger().LogAttrs(ctx, slogError, "reduce attempt failed", stepAttrs(p.QueryID, "reduce", r.start,
			"attempts", calls, "status", "failed", "error", err.Error())...)
		return Result{}, err
	}
	finalRound(r, calls, resp.InputTokens, resp.OutputTokens)
	res.Citations, res.Diagnostics.InvalidCitations = citations(res.Answer, shown, r.plan.Batches)
	if len(res.MapErrors) > 0 || failedGroups > 0 {
		return e.finishReduce(ctx, r, StatusPartial, nil)
	}
	return e.finishReduce(ctx, r, StatusCompleted, nil)
}

// failedTree fills what FailReduce reports of a reduce whose final call
// failed every attempt: in tree mode with rounds, the rounds and the
// final call's calls; else the answers the failed reduce was given, which
// still reached it.
func (e *Engine) failedTree(ctx context.Context, r *reduceRun, calls int) error {
	p := r.plan.Params
	if reduceModeOf(p) == ReduceModeTree && len(r.answers) > 0 {
		t, err := e.replay(ctx, r)
		if err != nil {
			return err
		}
		if len(t.rounds) > 0 {
			applyTree(r, t)
			f := newFitter(r.counter, e.prompts().Reduce.WithResponseType(p.ResponseType).Skeleton(p.Query), p.ReducePromptBudget())
			selected, _, _ := selectTree(f, t.final)
			r.selected = len(selected)
			finalRound(r, calls, 0, 0)
			return nil
		}
	}
	r.res.Diagnostics.Reduce.ModelCalls = calls
	r.selectAnswers(e.prompts().Reduce.WithResponseType(p.ResponseType))
	return nil
}

// mapEnd is when the map stage ended, the last map answer's instant, when
// the run recorded one before step; else step.
func mapEnd(answers []MapAnswer, step time.Time) time.Time {
	var last time.Time
	for _, a := range answers {
		if a.AnsweredAt.After(last) {
			last = a.AnsweredAt
		}
	}
	if last.IsZero() || last.After(step) {
		return step
	}
	return last
}
