package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// A prepare engine that holds no model and leaves the rounds to no state
// machine refuses a dynamic selection as invalid input and records the run
// failed (docs/contract.md#dynamic-selection).
func TestPrepareRefusesDynamicSelectionWithoutAModel(t *testing.T) {
	h, s := fixture(t, nil)
	_, err := invoke(t, h.Prepare, `{"request":{"query":"x","queryId":"dyn","selection":"dynamic"}}`)
	require.Error(t, err)
	assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
	assert.Contains(t, err.Error(), `selection "dynamic" needs a model to rate communities`)
	res, err := s.Result(context.Background(), "dyn")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
}

// selectionForest has roots a, b, c and their children.
func selectionForest() globalsearch.Records {
	s := func(id string, level int, parent, text string) globalsearch.Summary {
		return globalsearch.Summary{ID: id, Level: level, ParentCommunityID: parent, Title: "Community " + id, Summary: text}
	}
	return globalsearch.Records{Summaries: []globalsearch.Summary{
		s("a", 0, "", "Harbour trade."), s("a1", 1, "a", "Fishing fleets."), s("a2", 1, "a", "Lighthouses."),
		s("b", 0, "", "Mountain farms."), s("b1", 1, "b", "Goat cheese."),
		s("c", 0, "", "River mills."), s("c1", 1, "c", "Grain prices."),
	}}
}

var selectionScores = map[string]int{"a": 4, "a1": 3, "a2": 1, "b": 1, "b1": 5, "c": 2, "c1": 1}

// selectionModel rates from selectionScores, failing the rating calls
// fail names, and answers every map and reduce call.
func selectionModel(fail func(req globalsearch.ModelRequest) bool) *fakeModel {
	return &fakeModel{complete: func(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		switch req.Stage {
		case globalsearch.StageReduce:
			return globalsearch.ModelResponse{Text: `{"answer":"final answer"}`}, nil
		case globalsearch.StageMap:
			return globalsearch.ModelResponse{Text: `{"answer":"partial answer","usefulness":60}`}, nil
		}
		if fail != nil && fail(req) {
			return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel, "bedrock model m: throttled")
		}
		var parts []string
		for _, p := range req.Parts {
			parts = append(parts, fmt.Sprintf(`{"id":%q,"score":%d}`, p.CommunityID, selectionScores[p.CommunityID]))
		}
		return globalsearch.ModelResponse{Text: `{"ratings":[` + strings.Join(parts, ",") + `]}`, InputTokens: 20, OutputTokens: 5}, nil
	}}
}

// selectionHandlers are the deployed prepare (no model, rounds in steps)
// and the map and reduce functions (the model) over one store.
func selectionHandlers(t *testing.T, model globalsearch.Model) (prepare, mapper *workflow.Handlers, s *memstore.Store) {
	t.Helper()
	s = memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "ns", selectionForest()))
	d := globalsearch.SpecDefaults
	d.Namespace = "ns"
	pe := &globalsearch.Engine{Index: s, Runs: s, MaxBatches: workflow.InlineMaxBatches}
	workflow.StepEngine(pe)
	return &workflow.Handlers{Engine: pe, Defaults: d},
		&workflow.Handlers{Engine: &globalsearch.Engine{Runs: s, Model: model}, Defaults: d}, s
}

const dynamicRequest = `{"query":"Where is trade?","queryId":"dyn","selection":"dynamic","shuffle":false}`

// runSteps runs the deployed steps as the state machine does: prepare,
// then while selecting every rating batch (two attempts each) and
// SelectNext, then every map batch and the reduce.
func runSteps(t *testing.T, prepare, mapper *workflow.Handlers) (workflow.PrepareOutput, []int, error) {
	t.Helper()
	return runStepsOf(t, prepare, mapper, dynamicRequest)
}

// runStepsOf is runSteps for a request of query id "dyn" of the caller's.
func runStepsOf(t *testing.T, prepare, mapper *workflow.Handlers, request string) (workflow.PrepareOutput, []int, error) {
	t.Helper()
	raw, err := invoke(t, prepare.Prepare, `{"request":`+request+`,"executionName":"dyn"}`)
	require.NoError(t, err)
	var out workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	var rounds []int
	for out.Mode == workflow.ModeSelecting {
		rounds = append(rounds, len(out.RatingBatchIndexes))
		for _, i := range out.RatingBatchIndexes {
			for attempt := 1; attempt <= globalsearch.RatingAttempts; attempt++ {
				in := fmt.Sprintf(`{"task":"rate","queryId":"dyn","runId":%q,"round":%d,"batchIndex":%d,"attempt":%d}`, out.RunID, out.Round, i, attempt)
				if _, err := invoke(t, mapper.Map, in); err == nil {
					break
				}
			}
		}
		raw, err = invoke(t, prepare.Prepare, fmt.Sprintf(`{"task":"select","queryId":"dyn","runId":%q,"round":%d,"executionName":"dyn"}`, out.RunID, out.Round))
		if err != nil {
			return out, rounds, err
		}
		out = workflow.PrepareOutput{}
		require.NoError(t, json.Unmarshal([]byte(raw), &out))
	}
	for _, i := range out.BatchIndexes {
		_, err := invoke(t, mapper.Map, fmt.Sprintf(`{"queryId":"dyn","runId":%q,"batchIndex":%d,"attempt":1}`, out.RunID, i))
		require.NoError(t, err)
	}
	_, err = invoke(t, mapper.Reduce, fmt.Sprintf(`{"queryId":"dyn","runId":%q,"mode":%q,"mapResults":[]}`, out.RunID, out.Mode))
	return out, rounds, err
}

// The deployed steps select what one process selects, with the same
// figures (docs/contract.md#dynamic-selection): the rounds rate the roots,
// then the children of the relevant ones; a rating batch whose attempts
// all fail leaves its communities not rated.
func TestDynamicSelectionInSteps(t *testing.T) {
	tests := []struct {
		name         string
		fail         func(req globalsearch.ModelRequest) bool
		wantSelected int
		wantFailed   int
	}{
		{"every rating answered", nil, 2, 0},
		{"the second round fails both attempts", func(req globalsearch.ModelRequest) bool {
			return strings.Contains(req.Content, "Community ID: a1 ")
		}, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prepare, mapper, s := selectionHandlers(t, selectionModel(tc.fail))
			out, rounds, err := runSteps(t, prepare, mapper)
			require.NoError(t, err)
			assert.Equal(t, []int{1, 1}, rounds, "two rounds of one rating batch each")
			assert.Equal(t, workflow.ModeInline, out.Mode)
			res, err := s.Result(context.Background(), "dyn")
			require.NoError(t, err)
			got := res.Diagnostics.Selection
			require.Positive(t, got.Rounds, "the result reports the selection")
			assert.Equal(t, tc.wantSelected, got.Selected)
			assert.Equal(t, tc.wantFailed, got.FailedRatingBatches)

			// One process, same request and model: the same report.
			one := memstore.New()
			require.NoError(t, one.ReplaceNamespace(context.Background(), "ns", selectionForest()))
			e := &globalsearch.Engine{Index: one, Runs: one, Model: selectionModel(tc.fail)}
			p, err := globalsearch.ParseRequest([]byte(dynamicRequest), prepare.Defaults)
			require.NoError(t, err)
			want, err := e.Search(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, want.Diagnostics.Selection, got)
			assert.Equal(t, want.Diagnostics.ModelCalls, res.Diagnostics.ModelCalls, "rating calls are model calls of the run")
		})
	}
}

// A first round none of whose batches is rated fails the run with
// RatingFailedError, its failed result saved (docs/contract.md#dynamic-selection).
// Its result counts the rating calls it made (docs/contract.md#cancel), in
// steps as in one process.
func TestDynamicSelectionInStepsFirstRoundFails(t *testing.T) {
	var calls atomic.Int64
	failing := selectionModel(func(globalsearch.ModelRequest) bool { calls.Add(1); return true })
	prepare, mapper, s := selectionHandlers(t, failing)
	_, _, err := runSteps(t, prepare, mapper)
	require.Error(t, err)
	assert.Equal(t, "RatingFailedError", workflow.ErrorType(err))
	assert.Contains(t, err.Error(), "every rating batch of the root communities failed")
	res, err := s.Result(context.Background(), "dyn")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	made := int(calls.Load())
	require.Positive(t, made)
	assert.Equal(t, made, res.Diagnostics.Selection.RatingCalls, "the failed prepare's rating calls")
	assert.Equal(t, made, res.Diagnostics.ModelCalls)

	calls.Store(0)
	one := memstore.New()
	require.NoError(t, one.ReplaceNamespace(context.Background(), "ns", selectionForest()))
	p, err := globalsearch.ParseRequest([]byte(dynamicRequest), prepare.Defaults)
	require.NoError(t, err)
	got, err := (&globalsearch.Engine{Index: one, Runs: one, Model: failing}).Search(context.Background(), p)
	require.Error(t, err)
	assert.Equal(t, globalsearch.StatusFailed, got.Status)
	assert.Equal(t, int(calls.Load()), got.Diagnostics.ModelCalls, "in one process too")
	assert.Equal(t, made, got.Diagnostics.Selection.RatingCalls)
}

// Every bad input of the selection tasks is a named error before any
// read or call, and a step of a replaced run is refused.
func TestSelectionTaskInputs(t *testing.T) {
	model := selectionModel(nil)
	prepare, mapper, _ := selectionHandlers(t, model)
	raw, err := invoke(t, prepare.Prepare, `{"request":`+dynamicRequest+`,"executionName":"dyn"}`)
	require.NoError(t, err)
	var first workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(raw), &first))
	_, err = invoke(t, prepare.Prepare, `{"request":`+dynamicRequest+`,"executionName":"dyn"}`)
	require.NoError(t, err, "the same request again starts a new run")
	tests := []struct {
		name, payload, want string
		fn                  any
	}{
		{"unknown prepare task", `{"task":"rate","queryId":"dyn"}`, "InvalidInputError", prepare.Prepare},
		{"prepare with a run", `{"request":` + dynamicRequest + `,"runId":"r"}`, "InvalidInputError", prepare.Prepare},
		{"select without a round", `{"task":"select","queryId":"dyn","runId":"r"}`, "InvalidInputError", prepare.Prepare},
		{"select with a request", `{"task":"select","queryId":"dyn","runId":"r","round":1,"request":{}}`, "InvalidInputError", prepare.Prepare},
		{"select of a replaced run", `{"task":"select","queryId":"dyn","runId":"` + first.RunID + `","round":1}`, "NotFoundError", prepare.Prepare},
		{"unknown map task", `{"task":"select","queryId":"dyn","batchIndex":0}`, "InvalidInputError", mapper.Map},
		{"map batch with a round", `{"queryId":"dyn","batchIndex":0,"round":1}`, "InvalidInputError", mapper.Map},
		{"rate without a run", `{"task":"rate","queryId":"dyn","round":1,"batchIndex":0}`, "InvalidInputError", mapper.Map},
		{"rate round 0", `{"task":"rate","queryId":"dyn","runId":"r","round":0,"batchIndex":0}`, "InvalidInputError", mapper.Map},
		{"rate of a replaced run", `{"task":"rate","queryId":"dyn","runId":"` + first.RunID + `","round":1,"batchIndex":0,"attempt":1}`, "NotFoundError", mapper.Map},
		{"rate of a batch never saved", `{"task":"rate","queryId":"dyn","runId":"` + currentRun(t, prepare) + `","round":1,"batchIndex":7,"attempt":1}`, "NotFoundError", mapper.Map},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := invoke(t, tc.fn, tc.payload)
			require.Error(t, err)
			assert.Equal(t, tc.want, workflow.ErrorType(err), err.Error())
		})
	}
}

// currentRun is the run of query id dyn's current plan.
func currentRun(t *testing.T, h *workflow.Handlers) string {
	t.Helper()
	plan, err := h.Engine.Runs.PlanMeta(context.Background(), "dyn")
	require.NoError(t, err)
	return plan.RunID
}

// The deployed loop's bounds (docs/contract.md#plan-limits): a selection
// that could rate more batches, or more rounds, than the state machine
// holds is refused before any call, its failed result saved.
func TestDynamicSelectionStepLimits(t *testing.T) {
	tests := []struct {
		name             string
		batches, rounds  int
		wantErr, wantMsg string
	}{
		{"too many rating batches", 1, workflow.MaxSelectionRounds, "PlanTooLargeError",
			"dynamic selection may need up to 2 rating batches (every community relevant), but the state machine rates at most 1"},
		{"too many rounds", workflow.MaxRatingBatches, 1, "PlanTooLargeError",
			"dynamic selection may rate 2 levels of communities, but the state machine rates at most 1 rounds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := selectionModel(nil)
			calls := 0
			counted := &fakeModel{complete: func(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
				calls++
				return model.Complete(ctx, req)
			}}
			prepare, _, s := selectionHandlers(t, counted)
			prepare.Engine.MaxRatingBatches, prepare.Engine.MaxRatingRounds = tc.batches, tc.rounds
			_, err := invoke(t, prepare.Prepare, `{"request":`+dynamicRequest+`,"executionName":"dyn"}`)
			require.Error(t, err)
			assert.Equal(t, tc.wantErr, workflow.ErrorType(err))
			assert.Contains(t, err.Error(), tc.wantMsg)
			res, err := s.Result(context.Background(), "dyn")
			require.NoError(t, err)
			assert.Equal(t, globalsearch.StatusFailed, res.Status)
			assert.Zero(t, calls)
		})
	}
}

// A SelectNext retried after it saved the plan answers that plan again
// (the steps replay from what the runs store holds).
func TestSelectNextRetried(t *testing.T) {
	prepare, mapper, _ := selectionHandlers(t, selectionModel(nil))
	out, rounds, err := runSteps(t, prepare, mapper)
	require.NoError(t, err)
	require.Len(t, rounds, 2)
	again, err := invoke(t, prepare.Prepare, fmt.Sprintf(`{"task":"select","queryId":"dyn","runId":%q,"round":2,"executionName":"dyn"}`, out.RunID))
	require.NoError(t, err)
	var got workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(again), &got))
	assert.Equal(t, out, got)
}

// A selection's rating batches share the execution's history with an
// inline map (docs/contract.md#plan-limits): its plan runs inline only
// while its most rating batches and its map batches fit InlineMaxBatches.
func TestDynamicSelectionMapMode(t *testing.T) {
	tests := []struct {
		name      string
		inlineMax int
		want      string
	}{
		// Two rounds of one rating batch each at most, then one map batch.
		{"rating and map batches fit", 3, workflow.ModeInline},
		{"rating and map batches pass it", 2, workflow.ModeDistributed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prepare, mapper, _ := selectionHandlers(t, selectionModel(nil))
			items := &mapItems{}
			prepare.InlineMaxBatches, prepare.Items = tc.inlineMax, items
			out, _, err := runSteps(t, prepare, mapper)
			require.Equal(t, tc.want, out.Mode)
			if tc.want == workflow.ModeInline {
				require.NoError(t, err)
				assert.Equal(t, []int{0}, out.BatchIndexes)
				assert.Empty(t, items.asked)
				return
			}
			assert.Equal(t, []string{"dyn/" + out.RunID + "/1"}, items.asked)
			assert.Equal(t, "items-of-dyn", out.ItemsKey)
		})
	}
}

// A selection reads one version of its namespace from its first step to
// its plan (docs/contract.md#selection-steps): a namespace replaced between
// rating rounds fails the run, its failed result saved, rather than rate
// or map another version with the first one's ratings.
func TestDynamicSelectionNamespaceReplacedBetweenRounds(t *testing.T) {
	prepare, mapper, s := selectionHandlers(t, selectionModel(nil))
	raw, err := invoke(t, prepare.Prepare, `{"request":`+dynamicRequest+`,"executionName":"dyn"}`)
	require.NoError(t, err)
	var out workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	require.Equal(t, workflow.ModeSelecting, out.Mode)
	for _, i := range out.RatingBatchIndexes {
		_, err := invoke(t, mapper.Map, fmt.Sprintf(`{"task":"rate","queryId":"dyn","runId":%q,"round":%d,"batchIndex":%d,"attempt":1}`, out.RunID, out.Round, i))
		require.NoError(t, err)
	}
	replaced := selectionForest()
	replaced.Summaries[0].Summary = "Harbour trade, rewritten."
	require.NoError(t, s.ReplaceNamespace(context.Background(), "ns", replaced))

	_, err = invoke(t, prepare.Prepare, fmt.Sprintf(`{"task":"select","queryId":"dyn","runId":%q,"round":%d,"executionName":"dyn"}`, out.RunID, out.Round))
	require.Error(t, err)
	assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
	assert.Contains(t, err.Error(), "namespace ns was replaced while this search's dynamic selection rated it")
	res, err := s.Result(context.Background(), "dyn")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	_, err = invoke(t, mapper.Map, fmt.Sprintf(`{"queryId":"dyn","runId":%q,"batchIndex":0,"attempt":1}`, out.RunID))
	assert.Error(t, err, "no plan of either version was saved to map")
}
