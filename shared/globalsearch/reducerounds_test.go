package globalsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// fixedClock keeps a result's times equal across runs, so two results
// can be compared byte for byte.
func fixedClock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// searchJSON runs p on a fresh memstore holding records with the offline
// model and returns the result as JSON.
func searchJSON(t *testing.T, records gs.Records, p gs.Params) ([]byte, gs.Result) {
	t.Helper()
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), p.Namespace, records))
	e := &gs.Engine{Index: s, Runs: s, Model: offline.New(), Now: fixedClock}
	res, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	out, err := json.Marshal(res)
	require.NoError(t, err)
	return out, res
}

// On Carol every useful answer fits one reduce prompt, so tree makes the
// calls single makes and gives the same result, byte for byte
// (docs/contract.md#reduce-rounds).
func TestTreeEqualsSingleOnCarol(t *testing.T) {
	records, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
	require.NoError(t, err)
	var got [][]byte
	for _, mode := range []string{gs.ReduceModeSingle, gs.ReduceModeTree} {
		seed := int64(1)
		p, err := gs.Request{Query: "What are the main themes of the story?", ShuffleSeed: &seed, ReduceMode: &mode, QueryID: "carol"}.Params(gs.SpecDefaults)
		require.NoError(t, err)
		out, res := searchJSON(t, records, p)
		require.Equal(t, gs.StatusCompleted, res.Status)
		assert.Equal(t, 1, res.Diagnostics.Reduce.Rounds, mode)
		assert.Empty(t, res.Diagnostics.Reduce.PerRound, mode)
		assert.Zero(t, res.Diagnostics.Coverage.MapAnswers.SkippedForBudget, mode)
		got = append(got, out)
	}
	assert.Equal(t, string(got[0]), string(got[1]), "tree == single on Carol")
}

// roundsModel answers map calls citing their batch's first community,
// intermediate calls (IntermediateResponseType) citing the first id of
// each candidate's header and one no candidate named, and the final call
// the same with one invented.
func roundsModel(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
	if req.Stage == gs.StageMap {
		id := req.Parts[0].CommunityID
		return text(fmt.Sprintf(`{"answer":"Output of %s rose. [Data: Communities (%s)]","usefulness":%d}`, id, id, 10+len(id)))
	}
	var ids []string
	for _, c := range req.Candidates {
		ids = append(ids, c.CommunityIDs[0])
	}
	answer := "Joined findings. " + gs.CitationMark(ids) + " Also " + gs.CitationMark([]string{"never-seen"})
	if req.ResponseType != gs.IntermediateResponseType {
		answer = "Final. " + gs.CitationMark(ids) + " " + gs.CitationMark([]string{"invented"})
	}
	out, err := json.Marshal(map[string]string{"answer": answer})
	if err != nil {
		return gs.ModelResponse{}, err
	}
	return text(string(out))
}

// roundsParams is a request over n one-summary batches whose reduce
// budget holds a few candidates only, so that the reduce needs rounds.
func roundsParams(t *testing.T, mode string, extra func(*gs.Request)) gs.Params {
	t.Helper()
	return oneBatchPerSummary(t, "What rose?", func(r *gs.Request) {
		p := gs.DefaultPrompts()
		skeleton := max(tokens.Estimate(p.Reduce.Skeleton("What rose?")), tokens.Estimate(p.Round.Skeleton("What rose?")))
		budget, reserve := skeleton+160+120, 120
		r.ReduceTokenBudget, r.ReduceOutputReserve, r.ReduceMode = &budget, &reserve, &mode
		// Map answers bounded by a reserve, which the worst case counts.
		mapBudget, mapReserve := *r.MapTokenBudget+40, 40
		r.MapTokenBudget, r.MapOutputReserve = &mapBudget, &mapReserve
		if extra != nil {
			extra(r)
		}
	})
}

// A reduce that needs several rounds keeps every useful answer
// (skippedForBudget 0), reports each round and holds the citations of
// every round to what its group saw.
func TestTreeReducesInRounds(t *testing.T) {
	model := &fakeModel{complete: roundsModel}
	e, _ := newEngine(t, leafNamespace(60), model)
	p := roundsParams(t, gs.ReduceModeTree, nil)
	res, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, gs.StatusCompleted, res.Status, res.Error)
	d := res.Diagnostics
	require.GreaterOrEqual(t, d.Reduce.Rounds, 3, "several rounds: %+v", d.Reduce.PerRound)
	require.Len(t, d.Reduce.PerRound, d.Reduce.Rounds)
	assert.Equal(t, gs.MapAnswerCoverage{Useful: 60, ReachedReduce: 60, InRounds: true}, *d.Coverage.MapAnswers)
	calls, dropped := 0, 0
	for i, r := range d.Reduce.PerRound {
		assert.Equal(t, i+1, r.Round)
		calls += r.ModelCalls
		dropped += r.DroppedCitations
		if i > 0 {
			assert.Less(t, r.Groups, d.Reduce.PerRound[i-1].Groups, "each round has fewer groups")
			assert.Equal(t, d.Reduce.PerRound[i-1].Groups, r.Candidates, "a round reads the answers of the one before")
		}
		if i < len(d.Reduce.PerRound)-1 {
			assert.Equal(t, r.Groups, r.DroppedCitations, "each intermediate answer's unseen id is dropped and counted")
		}
	}
	last := d.Reduce.PerRound[len(d.Reduce.PerRound)-1]
	assert.Equal(t, 1, last.Groups, "the final call is the last round")
	assert.Equal(t, calls, d.Reduce.ModelCalls)
	assert.Equal(t, model.count(gs.StageReduce), d.Reduce.ModelCalls)
	assert.Equal(t, dropped, d.Reduce.DroppedCitations)
	assert.Equal(t, 1, d.InvalidCitations, "the final answer's invented id")
	assert.NotContains(t, res.Answer, "never-seen", "no unseen id survives a round")
	require.NotEmpty(t, res.Citations)
	for _, c := range res.Citations {
		assert.Regexp(t, `^c\d+$`, c.CommunityID, "every id the answer cites was cited by a map answer")
	}
	assert.Len(t, res.SelectedMapAnswers, last.Candidates, "the final call's candidates are the last intermediate answers")

	single := &fakeModel{complete: roundsModel}
	es, _ := newEngine(t, leafNamespace(60), single)
	sres, err := es.Search(context.Background(), roundsParams(t, gs.ReduceModeSingle, nil))
	require.NoError(t, err)
	assert.Positive(t, sres.Diagnostics.Coverage.MapAnswers.SkippedForBudget, "single skips what tree keeps")
	assert.Contains(t, sres.Diagnostics.Coverage.LineWithReduceHint(), "--reduce-mode tree would keep the")
	assert.Equal(t, 1, sres.Diagnostics.Reduce.Rounds)
}

// A group that fails both attempts leaves the other groups going on and
// the result partial, naming the group.
func TestTreeFailedGroupMakesPartial(t *testing.T) {
	model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.ResponseType == gs.IntermediateResponseType && slices.ContainsFunc(req.Candidates, func(c gs.Candidate) bool {
			return slices.Contains(c.CommunityIDs, "c0")
		}) {
			return gs.ModelResponse{}, gs.Errorf(gs.KindThrottled, "group of c0 throttled")
		}
		return roundsModel(req, call)
	}}
	e, _ := newEngine(t, leafNamespace(60), model)
	res, err := e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.NoError(t, err)
	require.Equal(t, gs.StatusPartial, res.Status)
	first := res.Diagnostics.Reduce.PerRound[0]
	require.Len(t, first.FailedGroups, 1)
	failed := first.FailedGroups[0]
	assert.Contains(t, failed.Error, "group of c0 throttled")
	assert.Positive(t, failed.Answers)
	assert.GreaterOrEqual(t, first.ModelCalls, first.Groups+1, "the failed group was tried twice")
	for _, c := range res.Citations {
		assert.NotEqual(t, "c0", c.CommunityID, "a failed group's answers reach no later round")
	}
	assert.Equal(t, 60, res.Diagnostics.Coverage.MapAnswers.ReachedReduce, "its answers reached a reduce call")
}

// Every group of a round failing fails the run.
func TestTreeEveryGroupFailedFails(t *testing.T) {
	model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.ResponseType == gs.IntermediateResponseType {
			return gs.ModelResponse{}, errors.New("reduce model down")
		}
		return roundsModel(req, call)
	}}
	e, _ := newEngine(t, leafNamespace(30), model)
	res, err := e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.Error(t, err)
	assert.Equal(t, gs.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "every group of reduce round 1 failed")
}

// The plan's worst case counts the rounds, and maxModelCalls holds it
// before any model call: one call below it is refused, at it the run goes
// and makes no more calls than it states.
func TestTreeWorstCaseHoldsTheCeiling(t *testing.T) {
	model := &fakeModel{complete: roundsModel}
	e, _ := newEngine(t, leafNamespace(60), model)
	plan, err := e.Plan(context.Background(), roundsParams(t, gs.ReduceModeTree, nil))
	require.NoError(t, err)
	w := e.Report(plan).WorstCase
	require.GreaterOrEqual(t, w.ReduceRounds, 2, "%+v", w)
	assert.Greater(t, w.ReduceCalls, gs.ReduceAttempts, "the rounds' calls are counted")
	assert.Equal(t, w.ReduceCalls*plan.Params.ReducePromptBudget(), w.ReduceInputTokens)
	assert.Contains(t, w.RoundsLine(), fmt.Sprintf("at most %d rounds", w.ReduceRounds))

	single, err := e.Plan(context.Background(), roundsParams(t, gs.ReduceModeSingle, nil))
	require.NoError(t, err)
	assert.Equal(t, gs.ReduceAttempts, e.Report(single).WorstCase.ReduceCalls)
	assert.Zero(t, e.Report(single).WorstCase.ReduceRounds)

	below := w.Calls() - 1
	_, err = e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, func(r *gs.Request) { r.MaxModelCalls = &below }))
	assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err), "%v", err)
	assert.Contains(t, err.Error(), "reduce rounds")
	assert.Zero(t, model.count(gs.StageMap)+model.count(gs.StageReduce), "refused before any model call")

	at := w.Calls()
	res, err := e.Search(context.Background(), roundsParams(t, gs.ReduceModeTree, func(r *gs.Request) { r.MaxModelCalls = &at }))
	require.NoError(t, err)
	assert.LessOrEqual(t, res.Diagnostics.Reduce.ModelCalls, w.ReduceCalls)
	assert.LessOrEqual(t, res.Diagnostics.ModelCalls, w.Calls())
}

// The steps refuse what they must before any write or model call.
func TestReduceRoundStepsRefuse(t *testing.T) {
	ctx := context.Background()
	model := &fakeModel{complete: roundsModel}
	e, s := newEngine(t, leafNamespace(30), model)
	p := roundsParams(t, gs.ReduceModeTree, nil)
	out, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	for i := range out.BatchCount {
		_, err := e.MapBatch(ctx, p.QueryID, out.RunID, i, 1)
		require.NoError(t, err)
	}
	round, err := e.PlanReduceRound(ctx, p.QueryID, out.RunID, nil)
	require.NoError(t, err)
	require.Equal(t, 1, round.Round)
	require.Positive(t, round.Groups)
	again, err := e.PlanReduceRound(ctx, p.QueryID, out.RunID, nil)
	require.NoError(t, err)
	assert.Equal(t, round, again, "a repeated step plans the same round")

	_, err = e.PlanReduceRound(ctx, p.QueryID, "another-run", nil)
	assert.ErrorIs(t, err, gs.ErrNotFound, "a superseded run")
	assert.ErrorIs(t, e.ReduceGroupAttempt(ctx, p.QueryID, "another-run", 1, 0, 1), gs.ErrNotFound)
	assert.Equal(t, gs.KindInvalidInput, gs.KindOf(e.ReduceGroupAttempt(ctx, p.QueryID, out.RunID, 0, 0, 1)))
	assert.ErrorIs(t, e.ReduceGroupAttempt(ctx, p.QueryID, out.RunID, 1, round.Groups, 1), gs.ErrNotFound, "a group never planned")
	calls := model.count(gs.StageReduce)

	require.NoError(t, s.CancelResult(ctx, gs.CancelledResult(p, fixedClock()), p.QueryID))
	assert.ErrorIs(t, e.ReduceGroupAttempt(ctx, p.QueryID, out.RunID, 1, 0, 1), gs.ErrNotFound, "a cancelled run")
	_, err = e.PlanReduceRound(ctx, p.QueryID, out.RunID, nil)
	assert.ErrorIs(t, err, gs.ErrNotFound)
	assert.Equal(t, calls, model.count(gs.StageReduce), "no call for a refused step")
	answers, err := s.GroupAnswers(ctx, p.QueryID, out.RunID)
	require.NoError(t, err)
	assert.Empty(t, answers, "a refused step writes nothing")
}

// reduceMode takes "single" or "tree" only, from the request or the
// deployment's GRAPHRAG_REDUCE_MODE.
func TestReduceModeField(t *testing.T) {
	tests := []struct {
		name, json, env, want, wantErr string
	}{
		{name: "default", json: `{"query":"q"}`, want: gs.ReduceModeSingle},
		{name: "tree", json: `{"query":"q","reduceMode":"tree"}`, want: gs.ReduceModeTree},
		{name: "env default", json: `{"query":"q"}`, env: "tree", want: gs.ReduceModeTree},
		{name: "request wins", json: `{"query":"q","reduceMode":"single"}`, env: "tree", want: gs.ReduceModeSingle},
		{name: "unknown", json: `{"query":"q","reduceMode":"forest"}`, wantErr: `reduceMode must be one of single, tree`},
		{name: "null", json: `{"query":"q","reduceMode":null}`, wantErr: `reduceMode must be one of single, tree`},
		{name: "bad env", json: `{"query":"q"}`, env: "both", wantErr: "GRAPHRAG_REDUCE_MODE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := gs.DefaultsFromEnv(func(k string) (string, bool) {
				return tc.env, k == "GRAPHRAG_REDUCE_MODE" && tc.env != ""
			})
			if err == nil {
				var p gs.Params
				p, err = gs.ParseRequest([]byte(tc.json), d)
				if tc.wantErr == "" {
					require.NoError(t, err)
					assert.Equal(t, tc.want, p.ReduceMode)
					return
				}
			}
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.True(t, strings.Contains(err.Error(), tc.wantErr), err.Error())
		})
	}
}
