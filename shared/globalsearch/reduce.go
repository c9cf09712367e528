package globalsearch

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// RenderCandidate is one map answer as the Reduce prompt shows it
// (docs/contract.md#reduce-selection); usefulness is printed in shortest form (85, 72.5). Lines of
// the answer that read as a header are neutralised (NeutraliseHeaders), so
// only the real header of each candidate starts with "[".
func RenderCandidate(a MapAnswer) string { return NewCandidate(a).Render() }

// NewCandidate is a as the reduce prompt shows it. Its header names the
// communities the answer cites, so the reduce model cites, per statement,
// what that statement rests on; an answer that cites none names its
// batch's (docs/contract.md#reduce-selection).
func NewCandidate(a MapAnswer) Candidate {
	ids := a.CitedCommunityIDs
	if len(ids) == 0 {
		ids = a.CommunityIDs
	}
	return Candidate{Usefulness: a.Usefulness, CommunityIDs: ids, Answer: NeutraliseHeaders(a.Answer)}
}

// Render is the candidate's text in the reduce prompt (docs/contract.md#reduce-selection).
func (c Candidate) Render() string {
	return "[Usefulness: " + strconv.FormatFloat(c.Usefulness, 'f', -1, 64) +
		"; Community IDs: " + strings.Join(c.CommunityIDs, ", ") + "]\n" + c.Answer
}

// forgedHeader finds a line (after any line break, leading blanks allowed)
// that starts like a reduce header or a part header, in any letter case.
var forgedHeader = regexp.MustCompile(`(?im)(^|[\r\v\f\x{85}\x{2028}\x{2029}])([ \t]*)(\[[ \t]*(?:usefulness|community ids?)[ \t]*:)`)

// NeutraliseHeaders quotes every line of a map answer that looks like a
// reduce header ("[Usefulness: …") or a part header ("[Community ID: …") by
// putting "> " before it (docs/contract.md#data-safe-prompts): a model could otherwise smuggle in a
// candidate with its own usefulness and communities. The answer is
// otherwise unchanged, and selection measures the neutralised text.
func NeutraliseHeaders(answer string) string {
	return forgedHeader.ReplaceAllString(answer, "${1}${2}> ${3}")
}

const candidateSeparator = "\n\n"

// SelectAnswers picks the map answers that go to reduce (docs/contract.md#reduce-selection):
// usefulness 0 dropped, the rest by usefulness descending with ties in batch
// order, each added if the prompt still fits and otherwise skipped (a later,
// shorter answer may still fit). It returns the selection, the content and
// the estimated tokens of the whole Reduce prompt.
func SelectAnswers(skeleton string, budget int, answers []MapAnswer) ([]MapAnswer, string, int) {
	return SelectAnswersWith(tokens.EstimateCounter, skeleton, budget, answers)
}

// SelectAnswersWith is SelectAnswers measured by c (docs/contract.md#token-estimate).
func SelectAnswersWith(c tokens.Counter, skeleton string, budget int, answers []MapAnswer) ([]MapAnswer, string, int) {
	ranked := make([]MapAnswer, 0, len(answers))
	for _, a := range answers {
		if a.Usefulness > 0 {
			ranked = append(ranked, a)
		}
	}
	slices.SortStableFunc(ranked, func(a, b MapAnswer) int {
		return cmp.Or(cmp.Compare(b.Usefulness, a.Usefulness), cmp.Compare(a.BatchIndex, b.BatchIndex))
	})
	prompt := tokens.NewPromptWith(c, skeleton)
	sep := tokens.Separator(c, candidateSeparator)
	var (
		selected []MapAnswer
		rendered []string
		content  tokens.Count
	)
	for _, a := range ranked {
		text := RenderCandidate(a)
		grown := content.Add(c.Of(text))
		if len(selected) > 0 {
			grown = grown.Add(sep)
		}
		if !prompt.Fits(grown, budget) {
			continue
		}
		selected, rendered, content = append(selected, a), append(rendered, text), grown
	}
	if len(selected) == 0 {
		return nil, "", 0
	}
	return selected, strings.Join(rendered, candidateSeparator), prompt.Tokens(content)
}

// Reduce makes one attempt at the reduce step of a planned run (docs/contract.md#reduce):
// it reads the plan and the stored map answers, adds the batches that failed
// (as the state machine's Catch or the in-process runner reports them),
// selects within budget, calls the model once and saves the result. Every
// batch failed saves a failed result and returns KindAllBatchesFailed. A
// failed model call saves nothing: whoever owns the retry (Search, or the
// state machine) calls FailReduce once no attempt is left, so the runs
// store never says failed while a retry is still to come.
//
// runID is the run the caller works for ("" for the current one); a newer
// plan of the query id refuses the step (KindNotFound) before the model
// call. Only this run's answers and failures reach the result, and a
// reported failure wins over a stored answer of the same batch.
func (e *Engine) Reduce(ctx context.Context, queryID, runID string, failures []BatchFailure) (Result, error) {
	r, err := e.loadReduce(ctx, queryID, runID, failures)
	if err != nil {
		return Result{}, err
	}
	res, p := &r.res, r.plan.Params
	if len(r.plan.Batches) > 0 && len(r.answers) == 0 {
		return e.finishReduce(ctx, r, StatusFailed, allFailedError(res.MapErrors))
	}
	if reduceModeOf(p) == ReduceModeTree {
		t, err := e.replay(ctx, r)
		if err != nil {
			return Result{}, err
		}
		if len(t.rounds) > 0 {
			return e.reduceTree(ctx, r, t)
		}
	}
	reducePrompt := e.prompts().Reduce.WithResponseType(p.ResponseType)
	selected, content, promptTokens := r.selectAnswers(reducePrompt)
	res.Diagnostics.SelectedAnswerCount = len(selected)
	res.Diagnostics.ReducePromptTokens = promptTokens
	candidates := make([]Candidate, len(selected))
	for i, a := range selected {
		res.SelectedMapAnswers = append(res.SelectedMapAnswers, SelectedAnswer{
			Answer: a.Answer, Usefulness: a.Usefulness, CommunityIDs: a.CommunityIDs, CitedCommunityIDs: a.CitedCommunityIDs})
		candidates[i] = NewCandidate(a)
	}
	if len(selected) == 0 {
		res.Answer = NoResultsAnswer
		return e.finishReduce(ctx, r, StatusNoResults, nil)
	}

	// Counted before the call, so a call that fails or times out still counts.
	calls, err := e.Runs.AddReduceCall(ctx, queryID, r.plan.RunID)
	if err != nil {
		return Result{}, fmt.Errorf("count reduce call of %s: %w", queryID, err)
	}
	res.Diagnostics.Reduce.ModelCalls = calls
	resp, err := e.completeReduce(ctx, queryID, calls, p.WithCallSettings(ModelRequest{
		Stage:      StageReduce,
		Query:      p.Query,
		Content:    content,
		Prompt:     reducePrompt.Render(p.Query, content),
		System:     e.prompts().System,
		Candidates: candidates,
		MaxTokens:  p.ReduceOutputReserve, ResponseType: p.ResponseType,
	}))
	if err == nil {
		res.Diagnostics.Reduce.InputTokens, res.Diagnostics.Reduce.OutputTokens = resp.InputTokens, resp.OutputTokens
		res.Diagnostics.Reduce.CacheReadInputTokens, res.Diagnostics.Reduce.CacheWriteInputTokens = resp.CacheReadInputTokens, resp.CacheWriteInputTokens
		res.Answer, err = ParseReduceOutput(resp.Text)
	}
	if err == nil {
		res.Citations, res.Diagnostics.InvalidCitations = citations(res.Answer, selected, r.plan.Batches)
	}
	if err != nil {
		err = fmt.Errorf("reduce attempt %d: %w", calls, err)
		e.logger().LogAttrs(ctx, slogError, "reduce attempt failed", stepAttrs(queryID, "reduce", r.start,
			"attempts", calls, "status", "failed", "error", err.Error())...)
		return Result{}, err
	}
	if len(res.MapErrors) > 0 {
		return e.finishReduce(ctx, r, StatusPartial, nil)
	}
	return e.finishReduce(ctx, r, StatusCompleted, nil)
}

// reduceRun is what one reduce step works on. selected is how many
// answers the reduce prompt holds, once selectAnswers has run.
type reduceRun struct {
	plan     Plan
	answers  []MapAnswer
	res      Result
	start    time.Time
	selected int
	counter  tokens.Counter // the plan's tokenizer (docs/contract.md#token-estimate)
	// began is the step's start on the engine's clock, for the timeline;
	// zero when the step does not measure reduce (FailReduce).
	began time.Time
	// tree says the run reduced in rounds (docs/contract.md#reduce-rounds):
	// reached then counts the map answers that reached a reduce call.
	tree    bool
	reached int
}

// reachedReduce is how many map answers reached a reduce call.
func (r *reduceRun) reachedReduce() int {
	if r.tree {
		return r.reached
	}
	return r.selected
}

// selectAnswers is SelectAnswers over the run's answers with its request's
// prompt and budget, remembered for the result's coverage.
func (r *reduceRun) selectAnswers(reducePrompt Template) ([]MapAnswer, string, int) {
	p := r.plan.Params
	selected, content, promptTokens := SelectAnswersWith(r.counter, reducePrompt.Skeleton(p.Query), p.ReducePromptBudget(), r.answers)
	r.selected = len(selected)
	return selected, content, promptTokens
}

func (e *Engine) loadReduce(ctx context.Context, queryID, runID string, failures []BatchFailure) (*reduceRun, error) {
	start, began := time.Now(), e.now()
	// Reduce reads ids and token counts, never the map texts.
	plan, err := e.Runs.PlanMeta(ctx, queryID)
	if err != nil {
		return nil, fmt.Errorf("load plan of %s: %w", queryID, err)
	}
	if runID != "" && plan.RunID != runID {
		return nil, supersededError(queryID, runID)
	}
	answers, err := e.Runs.MapAnswers(ctx, queryID, plan.RunID)
	if err != nil {
		return nil, fmt.Errorf("load map answers of %s: %w", queryID, err)
	}
	answers, res, err := e.mapStage(ctx, plan, answers, failures)
	if err != nil {
		return nil, err
	}
	counter, err := e.counter(plan.Params)
	if err != nil {
		return nil, err
	}
	return &reduceRun{plan: plan, answers: answers, res: res, start: start, began: began, counter: counter}, nil
}
