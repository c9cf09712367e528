package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// fakeModel is a scripted model: complete decides each answer.
type fakeModel struct {
	complete func(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error)
}

func (m *fakeModel) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	return m.complete(ctx, req)
}

// answering returns a model that answers every map batch with usefulness u
// and every reduce call with "final answer".
func answering(u int) *fakeModel {
	return &fakeModel{complete: func(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		if req.Stage == globalsearch.StageReduce {
			return globalsearch.ModelResponse{Text: `{"answer":"final answer"}`}, nil
		}
		return globalsearch.ModelResponse{Text: `{"answer":"partial answer","usefulness":` + itoa(u) + `}`}, nil
	}}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// fixture is a runs store and index with three level-0 summaries that a
// 1200-token map budget puts in three batches.
func fixture(t *testing.T, model globalsearch.Model) (*workflow.Handlers, *memstore.Store) {
	t.Helper()
	s := memstore.New()
	text := strings.Repeat("Trade and growth shaped the decade. ", 55)
	require.NoError(t, s.ReplaceNamespace(context.Background(), "ns", globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "a", Summary: text}, {ID: "b", Summary: text}, {ID: "c", Summary: text},
	}}))
	require.NoError(t, s.ReplaceNamespace(context.Background(), "broken", globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "x", Level: 1, ParentCommunityID: "missing", Summary: "orphan"},
	}}))
	d := globalsearch.SpecDefaults
	d.Namespace, d.MapTokenBudget, d.MapOutputReserve = "ns", 1200, 0
	e := &globalsearch.Engine{Index: s, Model: model, Runs: s, MaxBatches: workflow.InlineMaxBatches}
	return &workflow.Handlers{Engine: e, Defaults: d}, s
}

// invoke runs fn through aws-lambda-go's JSON path, as Lambda does.
func invoke(t *testing.T, fn any, payload string) (string, error) {
	t.Helper()
	out, err := lambda.NewHandlerWithOptions(fn, workflow.Options()...).Invoke(context.Background(), []byte(payload))
	return string(out), err
}

func TestNamedMapsEveryKind(t *testing.T) {
	cases := []struct {
		kind globalsearch.Kind
		want string
	}{
		{globalsearch.KindInvalidInput, "InvalidInputError"},
		{globalsearch.KindCorruptIndex, "CorruptIndexError"},
		{globalsearch.KindPlanTooLarge, "PlanTooLargeError"},
		{globalsearch.KindAllBatchesFailed, "AllBatchesFailedError"},
		{globalsearch.KindModelOutput, "ModelOutputError"},
		{globalsearch.KindThrottled, "ThrottledError"},
		{globalsearch.KindModel, "ModelError"},
		{globalsearch.KindNotFound, "NotFoundError"},
		{globalsearch.KindInternal, "InternalError"},
		{globalsearch.KindCorruptPayload, "CorruptPayloadError"},
		// The ASL matches InvalidInputError for a conflict too.
		{globalsearch.KindConflict, "InvalidInputError"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			cause := globalsearch.Errorf(tc.kind, "boom %d", 7)
			err := workflow.Named(errors.Join(errors.New("context"), cause))
			assert.Equal(t, tc.want, workflow.ErrorType(err))
			assert.Contains(t, err.Error(), "boom 7")
			// aws-lambda-go's own rule gives the same name.
			_, invokeErr := invoke(t, func(context.Context) error { return workflow.Named(cause) }, `{}`)
			assert.Equal(t, tc.want, workflow.ErrorType(invokeErr))
		})
	}
	names := map[string]bool{}
	for _, tc := range cases {
		names[tc.want] = true
	}
	// A selection none of whose roots was rated has a name of its own
	// (docs/contract.md#dynamic-selection), whatever its calls' kind.
	rating := workflow.Named(fmt.Errorf("prepare: %w", &globalsearch.RatingError{Err: globalsearch.Errorf(globalsearch.KindModel, "denied")}))
	assert.Equal(t, "RatingFailedError", workflow.ErrorType(rating))
	assert.Equal(t, "prepare: denied", rating.Error())
	names["RatingFailedError"] = true
	assert.Len(t, workflow.ErrorTypes(), len(names), "every named error type is some kind's, or a failed rating's")
	assert.Equal(t, "InternalError", workflow.ErrorType(workflow.Named(errors.New("plain"))))
	assert.NoError(t, workflow.Named(nil))
}

func TestPrepare(t *testing.T) {
	cases := []struct {
		name       string
		payload    string
		maxBatches int
		wantID     string
		wantType   string
		wantMsg    string
		wantFailed string // query id whose stored result must say failed
	}{
		{name: "request with its own id", payload: `{"request":{"query":"what changed?","queryId":"q1","shuffle":false},"executionName":"exec-1"}`,
			wantID: "q1"},
		{name: "schedule without id takes the execution name", payload: `{"request":{"query":"what changed?"},"executionName":"exec-2"}`,
			wantID: "exec-2"},
		{name: "invalid request is recorded as failed", payload: `{"request":{"query":"   "},"executionName":"exec-3"}`,
			wantType: "InvalidInputError", wantMsg: "query must not be empty", wantFailed: "exec-3"},
		{name: "unknown request field", payload: `{"request":{"query":"x","mapBudget":5},"executionName":"exec-4"}`,
			wantType: "InvalidInputError", wantMsg: `unknown request field "mapBudget"`, wantFailed: "exec-4"},
		{name: "field given twice, with the execution name as id", payload: `{"request":{"query":"x","query":"y"},"executionName":"exec-5"}`,
			wantType: "InvalidInputError", wantMsg: `request field "query" is given more than once`, wantFailed: "exec-5"},
		{name: "execution name that is no query id", payload: `{"request":{"query":"x"},"executionName":"has.dot"}`,
			wantType: "InvalidInputError", wantMsg: "queryId must be"},
		{name: "plan too large", payload: `{"request":{"query":"x","queryId":"big"}}`, maxBatches: 2,
			wantType: "PlanTooLargeError", wantMsg: "raise mapTokenBudget", wantFailed: "big"},
		{name: "corrupt index", payload: `{"request":{"query":"x","queryId":"bad","namespace":"broken"}}`,
			wantType: "CorruptIndexError", wantFailed: "bad"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, answering(50))
			if tc.maxBatches > 0 {
				h.Engine.MaxBatches = tc.maxBatches
			}
			out, err := invoke(t, h.Prepare, tc.payload)
			if tc.wantType != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantType, workflow.ErrorType(err))
				assert.Contains(t, err.Error(), tc.wantMsg)
				if tc.wantFailed != "" {
					res, rerr := s.Result(context.Background(), tc.wantFailed)
					require.NoError(t, rerr)
					assert.Equal(t, globalsearch.StatusFailed, res.Status)
					assert.Equal(t, err.Error(), res.Error)
				}
				return
			}
			require.NoError(t, err)
			var got workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			plan, err := s.Plan(context.Background(), tc.wantID)
			require.NoError(t, err)
			assert.NotEmpty(t, plan.RunID)
			assert.Equal(t, workflow.PrepareOutput{QueryID: tc.wantID, RunID: plan.RunID, BatchCount: 3, BatchIndexes: []int{0, 1, 2},
				// 3 batches at 4 in flight: one wave of the assumed 10 s, then the reduce's 10 s.
				MapConcurrency: globalsearch.SpecDefaults.MapConcurrency, ETASeconds: 20, Mode: workflow.ModeInline,
				ReduceMode: workflow.ReduceSingle}, got)
		})
	}
}

// TestPrepareMapConcurrency: the Map runs with the request's mapConcurrency
// (MaxConcurrencyPath), the deployment default when it names none, and
// never more than the deployment's maximum (docs/contract.md#state-machine);
// with a known quota, a request that names none runs at what the quota
// sustains, and one that names one at no more (docs/contract.md#quota).
// The plan item and the result keep what prepare output.
//
// The fixture plans 3 batches. The quota cases are bound by requests per
// minute, whatever the batches' tokens: at 10 s a call, 120 a minute
// sustain 120 x 10 / 60 = 20 calls in flight, 30 a minute 5. The time is
// ceil(3 / C) waves of 10 s, over the 3 / RPM x 60 s the requests take
// (1.5 s at 120, 6 s at 30), plus the reduce's 10 s.
func TestPrepareMapConcurrency(t *testing.T) {
	cases := []struct {
		name      string
		request   string
		deflt     int // the deployment default (GRAPHRAG_MAP_CONCURRENCY); 0: the contract's
		maximum   int // MapMaxConcurrency; 0: none
		quota     globalsearch.Quota
		wantValue int
		wantETA   int
	}{
		// ceil(3/4) = 1 wave: 10 s + 10 s.
		{name: "contract default", request: `{"query":"q"}`, wantValue: 4, wantETA: 20},
		{name: "deployment default", request: `{"query":"q"}`, deflt: 6, maximum: 8, wantValue: 6, wantETA: 20},
		// ceil(3/2) = 2 waves: 20 s + 10 s.
		{name: "request below the maximum", request: `{"query":"q","mapConcurrency":2}`, maximum: 8, wantValue: 2, wantETA: 30},
		{name: "request at the maximum", request: `{"query":"q","mapConcurrency":8}`, maximum: 8, wantValue: 8, wantETA: 20},
		{name: "request above the maximum is capped", request: `{"query":"q","mapConcurrency":50}`, maximum: 8, wantValue: 8, wantETA: 20},
		// ceil(3/3) = 1 wave.
		{name: "default above the maximum is capped", request: `{"query":"q"}`, maximum: 3, wantValue: 3, wantETA: 20},
		{name: "no maximum", request: `{"query":"q","mapConcurrency":50}`, wantValue: 50, wantETA: 20},
		{name: "the quota sizes a request that names none", request: `{"query":"q"}`, quota: globalsearch.Quota{RequestsPerMinute: 120},
			wantValue: 20, wantETA: 20},
		{name: "the quota wins over the deployment default", request: `{"query":"q"}`, deflt: 6, quota: globalsearch.Quota{RequestsPerMinute: 120},
			wantValue: 20, wantETA: 20},
		{name: "the maximum caps the quota's", request: `{"query":"q"}`, maximum: 8, quota: globalsearch.Quota{RequestsPerMinute: 120},
			wantValue: 8, wantETA: 20},
		{name: "a request below the quota's keeps its own", request: `{"query":"q","mapConcurrency":2}`, quota: globalsearch.Quota{RequestsPerMinute: 120},
			wantValue: 2, wantETA: 30},
		// 5 in flight: 1 wave of 10 s, over the requests' 6 s.
		{name: "the quota caps a request above it", request: `{"query":"q","mapConcurrency":50}`, quota: globalsearch.Quota{RequestsPerMinute: 30},
			wantValue: 5, wantETA: 20},
		// 60 a minute at 0.5 s a call: floor(0.5) = 0, so 1 in flight; 3
		// waves of 0.5 s are 1.5 s, under the requests' 3 / 60 x 60 = 3 s;
		// plus the reduce's 0.5 s is 3.5, so 4.
		{name: "never below one", request: `{"query":"q"}`, quota: globalsearch.Quota{RequestsPerMinute: 60, CallSeconds: 0.5},
			wantValue: 1, wantETA: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, answering(50))
			if tc.deflt > 0 {
				h.Defaults.MapConcurrency = tc.deflt
			}
			h.Engine.MapMaxConcurrency, h.Engine.Quota = tc.maximum, tc.quota
			out, err := invoke(t, h.Prepare, `{"request":`+tc.request+`,"executionName":"exec"}`)
			require.NoError(t, err)
			var got workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.Equal(t, 3, got.BatchCount)
			assert.Equal(t, tc.wantValue, got.MapConcurrency)
			assert.Equal(t, tc.wantETA, got.ETASeconds)
			plan, err := s.Plan(context.Background(), "exec")
			require.NoError(t, err)
			assert.Equal(t, []int{tc.wantValue, tc.wantETA}, []int{plan.MapConcurrency, plan.ETASeconds}, "the plan item")
			require.NoError(t, runAll(t, h, `{"request":`+tc.request+`,"executionName":"exec"}`))
			res, err := s.Result(context.Background(), "exec")
			require.NoError(t, err)
			assert.Equal(t, []int{tc.wantValue, tc.wantETA}, []int{res.Diagnostics.MapConcurrency, res.Diagnostics.ETASeconds}, "the result")
		})
	}
}

func TestPrepareReplaysStoredRequest(t *testing.T) {
	h, s := fixture(t, answering(50))
	_, err := invoke(t, h.Prepare, `{"request":{"query":"first"},"executionName":"same"}`)
	require.NoError(t, err)
	first, err := s.Request(context.Background(), "same")
	require.NoError(t, err)
	// A retried prepare generates a new seed when parsing; the stored
	// request must win so the plan does not change.
	_, err = invoke(t, h.Prepare, `{"request":{"query":"first"},"executionName":"same"}`)
	require.NoError(t, err)
	again, err := s.Request(context.Background(), "same")
	require.NoError(t, err)
	assert.Equal(t, first, again)
}

func TestMap(t *testing.T) {
	throttled := &fakeModel{complete: func(context.Context, globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindThrottled, "ThrottlingException: slow down")
	}}
	failing := &fakeModel{complete: func(context.Context, globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel, "ValidationException")
	}}
	prose := &fakeModel{complete: func(context.Context, globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		return globalsearch.ModelResponse{Text: "not json"}, nil
	}}
	cases := []struct {
		name     string
		model    globalsearch.Model
		payload  string
		want     string
		wantType string
	}{
		{"answer", answering(72), `{"queryId":"q1","batchIndex":1,"attempt":1}`, `{"batchIndex":1,"usefulness":72}`, ""},
		{"model output", prose, `{"queryId":"q1","batchIndex":0,"attempt":1}`, "", "ModelOutputError"},
		{"throttled", throttled, `{"queryId":"q1","batchIndex":0,"attempt":2}`, "", "ThrottledError"},
		{"model call", failing, `{"queryId":"q1","batchIndex":0,"attempt":1}`, "", "ModelError"},
		{"unknown batch", answering(1), `{"queryId":"q1","batchIndex":9,"attempt":1}`, "", "NotFoundError"},
		{"unknown run", answering(1), `{"queryId":"nope","batchIndex":0,"attempt":1}`, "", "NotFoundError"},
		{"no query id", answering(1), `{"batchIndex":0,"attempt":1}`, "", "InvalidInputError"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, tc.model)
			_, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1"}}`)
			require.NoError(t, err)
			out, err := invoke(t, h.Map, tc.payload)
			if tc.wantType != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantType, workflow.ErrorType(err))
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, out)
			plan, err := s.Plan(context.Background(), "q1")
			require.NoError(t, err)
			answers, err := s.MapAnswers(context.Background(), "q1", plan.RunID)
			require.NoError(t, err)
			require.Len(t, answers, 1)
			assert.Equal(t, 1, answers[0].Attempts)
		})
	}
}

func TestMapDeadlineIsNamedAndRetryable(t *testing.T) {
	slow := &fakeModel{complete: func(ctx context.Context, _ globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		<-ctx.Done()
		return globalsearch.ModelResponse{}, ctx.Err()
	}}
	h, _ := fixture(t, slow)
	_, err := invoke(t, h.Prepare, `{"request":{"query":"q","queryId":"q1"}}`)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err = lambda.NewHandlerWithOptions(h.Map, workflow.Options()...).Invoke(ctx, []byte(`{"queryId":"q1","batchIndex":0,"attempt":1}`))
	require.Error(t, err)
	assert.Equal(t, "ThrottledError", workflow.ErrorType(err))
	assert.NoError(t, ctx.Err(), "the handler must answer before the Lambda deadline")
}

func TestReduce(t *testing.T) {
	badReduce := &fakeModel{complete: func(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		if req.Stage == globalsearch.StageReduce {
			return globalsearch.ModelResponse{Text: `{"result":"x"}`}, nil
		}
		return globalsearch.ModelResponse{Text: `{"answer":"a","usefulness":40}`}, nil
	}}
	cases := []struct {
		name       string
		model      globalsearch.Model
		mapped     []int // batches the map stage answered
		payload    string
		want       string
		wantType   string
		wantStored globalsearch.Status // "" when no result may be stored
		wantError  string
	}{
		{name: "completed", model: answering(60), mapped: []int{0, 1, 2},
			payload: `{"queryId":"q1","mapResults":[{"batchIndex":0,"usefulness":60},{"batchIndex":1,"usefulness":60},{"batchIndex":2,"usefulness":60}]}`,
			want:    `{"queryId":"q1","status":"completed"}`, wantStored: globalsearch.StatusCompleted},
		{name: "partial", model: answering(60), mapped: []int{0, 2},
			payload: `{"queryId":"q1","mapResults":[{"batchIndex":0,"usefulness":60},{"failed":true,"batchIndex":1,"error":"ModelOutputError"},{"batchIndex":2,"usefulness":60}]}`,
			want:    `{"queryId":"q1","status":"partial"}`, wantStored: globalsearch.StatusPartial},
		{name: "every batch failed", model: answering(60),
			payload:  `{"queryId":"q1","mapResults":[{"failed":true,"batchIndex":0,"error":"ThrottledError"},{"failed":true,"batchIndex":1,"error":"ModelError"},{"failed":true,"batchIndex":2,"error":"ModelError"}]}`,
			wantType: "AllBatchesFailedError", wantStored: globalsearch.StatusFailed},
		{name: "bad reduce output, first attempt", model: badReduce, mapped: []int{0, 1, 2},
			payload:  `{"queryId":"q1","mapResults":[]}`,
			wantType: "ModelOutputError"},
		{name: "attempts spent: the Catch records the failure", model: badReduce, mapped: []int{0, 1, 2},
			payload:    `{"queryId":"q1","mapResults":[],"failure":{"Error":"ModelOutputError","Cause":"{\"errorMessage\":\"reduce attempt 2: bad\",\"errorType\":\"ModelOutputError\"}"}}`,
			want:       `{"queryId":"q1","status":"failed"}`,
			wantStored: globalsearch.StatusFailed, wantError: "ModelOutputError: reduce attempt 2: bad"},
		{name: "unknown run", model: answering(60), payload: `{"queryId":"zz","mapResults":[]}`, wantType: "NotFoundError"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, tc.model)
			_, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1"}}`)
			require.NoError(t, err)
			for _, i := range tc.mapped {
				_, err := invoke(t, h.Map, `{"queryId":"q1","batchIndex":`+itoa(i)+`,"attempt":1}`)
				require.NoError(t, err)
			}
			out, err := invoke(t, h.Reduce, tc.payload)
			if tc.wantType != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantType, workflow.ErrorType(err))
			} else {
				require.NoError(t, err)
				assert.JSONEq(t, tc.want, out)
			}
			res, rerr := s.Result(context.Background(), "q1")
			if tc.wantStored == "" {
				assert.ErrorIs(t, rerr, globalsearch.ErrNotFound)
				return
			}
			require.NoError(t, rerr)
			assert.Equal(t, tc.wantStored, res.Status)
			if tc.wantError != "" {
				assert.Equal(t, tc.wantError, res.Error)
			}
			if tc.wantStored == globalsearch.StatusPartial {
				require.Len(t, res.MapErrors, 1)
				assert.Contains(t, res.MapErrors[0].Message, "ModelOutputError")
				assert.Equal(t, []string{res.Diagnostics.Batches[1].CommunityIDs[0]}, res.MapErrors[0].CommunityIDs)
			}
		})
	}
}

// runAll runs prepare, every map batch and reduce through the handlers, as
// the state machine does, and returns reduce's error.
func runAll(t *testing.T, h *workflow.Handlers, prepare string) error {
	t.Helper()
	out, err := invoke(t, h.Prepare, prepare)
	if err != nil {
		return err
	}
	var prepared workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(out), &prepared))
	results := []workflow.MapResult{}
	for _, i := range prepared.BatchIndexes {
		in, _ := json.Marshal(workflow.MapInput{QueryID: prepared.QueryID, RunID: prepared.RunID, BatchIndex: i, Attempt: 1})
		if out, err := invoke(t, h.Map, string(in)); err != nil {
			results = append(results, workflow.MapResult{BatchIndex: i, Failed: true, Error: workflow.ErrorType(err)})
		} else {
			var r workflow.MapResult
			require.NoError(t, json.Unmarshal([]byte(out), &r))
			results = append(results, r)
		}
	}
	in, _ := json.Marshal(workflow.ReduceInput{QueryID: prepared.QueryID, RunID: prepared.RunID, MapResults: results})
	_, err = invoke(t, h.Reduce, string(in))
	return err
}

// TestPrepareAgainAfterIndexChange is issue 9 finding 1 through the
// handlers: the same request prepared again after the index changed, with
// every map call failing, ends failed, not completed from the first run.
func TestPrepareAgainAfterIndexChange(t *testing.T) {
	ctx := context.Background()
	var failing atomic.Bool
	model := &fakeModel{complete: func(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
		if req.Stage == globalsearch.StageMap && failing.Load() {
			return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel, "ValidationException")
		}
		return answering(60).complete(ctx, req)
	}}
	h, s := fixture(t, model)
	const start = `{"request":{"query":"what changed?","queryId":"nightly"}}`
	require.NoError(t, runAll(t, h, start))
	res, err := s.Result(ctx, "nightly")
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status)

	text := strings.Repeat("Fisheries shaped the decade. ", 60)
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "a", Summary: text}, {ID: "b", Summary: text}, {ID: "d", Summary: text},
	}}))
	failing.Store(true)
	err = runAll(t, h, start)
	require.Error(t, err)
	assert.Equal(t, "AllBatchesFailedError", workflow.ErrorType(err))
	res, err = s.Result(ctx, "nightly")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	assert.Empty(t, res.SelectedMapAnswers)
}

// TestPrepareQueryIDNamesOneRequest is issue 9 findings 2 and 3 through
// the handler: a query id that names a finished run is reused by a
// different request, or by an invalid one (its own id or the execution
// name): InvalidInputError naming the id, and nothing stored changes.
func TestPrepareQueryIDNamesOneRequest(t *testing.T) {
	cases := []struct {
		name    string
		payload string
		wantMsg string
	}{
		{"different query", `{"request":{"query":"what else?","queryId":"taken"}}`, "query id taken already names a different request"},
		{"different budget", `{"request":{"query":"what changed?","queryId":"taken","reduceTokenBudget":9000}}`, "query id taken already names a different request"},
		{"different explicit seed", `{"request":{"query":"what changed?","queryId":"taken","shuffleSeed":8}}`, "query id taken already names a different request"},
		{"invalid request with the id", `{"request":{"query":"  ","queryId":"taken"}}`, "query must not be empty"},
		{"invalid request named by the execution", `{"request":{"query":"x","mapBudget":1},"executionName":"taken"}`, `unknown request field "mapBudget"`},
		// Budgets are checked with the request, before any read: the
		// budget's own message, and still nothing stored changes.
		{"budget too small for the prompt", `{"request":{"query":"what changed?","queryId":"taken","mapTokenBudget":10}}`, "map token budget cannot fit the map prompt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h, s := fixture(t, answering(60))
			require.NoError(t, runAll(t, h, `{"request":{"query":"what changed?","queryId":"taken","shuffleSeed":7}}`))
			request, err := s.Request(ctx, "taken")
			require.NoError(t, err)
			plan, err := s.Plan(ctx, "taken")
			require.NoError(t, err)
			result, err := s.Result(ctx, "taken")
			require.NoError(t, err)

			_, err = invoke(t, h.Prepare, tc.payload)
			require.Error(t, err)
			assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
			assert.Contains(t, err.Error(), tc.wantMsg)

			after, err := s.Request(ctx, "taken")
			require.NoError(t, err)
			assert.Equal(t, request, after, "request unchanged")
			afterPlan, err := s.Plan(ctx, "taken")
			require.NoError(t, err)
			assert.Equal(t, plan, afterPlan, "plan unchanged")
			afterResult, err := s.Result(ctx, "taken")
			require.NoError(t, err)
			assert.Equal(t, result, afterResult, "result unchanged")
		})
	}
}

// TestPrepareSameRequestAgain: a schedule or workflow that starts the same
// request again (no seed of its own) gets a clean run with the stored seed.
func TestPrepareSameRequestAgain(t *testing.T) {
	ctx := context.Background()
	h, s := fixture(t, answering(60))
	const start = `{"request":{"query":"what changed?"},"executionName":"weekly"}`
	require.NoError(t, runAll(t, h, start))
	first, err := s.Plan(ctx, "weekly")
	require.NoError(t, err)
	require.NoError(t, runAll(t, h, start))
	again, err := s.Plan(ctx, "weekly")
	require.NoError(t, err)
	assert.NotEqual(t, first.RunID, again.RunID, "a new run")
	assert.Equal(t, first.Params, again.Params, "the stored request, seed included")
	res, err := s.Result(ctx, "weekly")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusCompleted, res.Status)
	assert.Equal(t, 3, res.Diagnostics.Map.ModelCalls, "only the new run's map calls")
	assert.Equal(t, 1, res.Diagnostics.Reduce.ModelCalls, "only the new run's reduce call")
}

// TestTasksOfAReplacedRun: map and reduce tasks that carry the run id of a
// plan since replaced are refused with NotFoundError and write nothing.
func TestTasksOfAReplacedRun(t *testing.T) {
	ctx := context.Background()
	h, s := fixture(t, answering(60))
	out, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1"}}`)
	require.NoError(t, err)
	var old workflow.PrepareOutput
	require.NoError(t, json.Unmarshal([]byte(out), &old))
	_, err = invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1"}}`)
	require.NoError(t, err)

	cases := []struct {
		name    string
		fn      any
		payload string
	}{
		{"map", h.Map, `{"queryId":"q1","runId":"` + old.RunID + `","batchIndex":0,"attempt":1}`},
		{"reduce", h.Reduce, `{"queryId":"q1","runId":"` + old.RunID + `","mapResults":[]}`},
		{"record reduce failure", h.Reduce, `{"queryId":"q1","runId":"` + old.RunID + `","mapResults":[],"failure":{"Error":"ModelError","Cause":"x"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := invoke(t, tc.fn, tc.payload)
			require.Error(t, err)
			assert.Equal(t, "NotFoundError", workflow.ErrorType(err))
			assert.Contains(t, err.Error(), "replaced by a newer plan")
			plan, err := s.Plan(ctx, "q1")
			require.NoError(t, err)
			answers, err := s.MapAnswers(ctx, "q1", plan.RunID)
			require.NoError(t, err)
			assert.Empty(t, answers)
			_, err = s.Result(ctx, "q1")
			assert.ErrorIs(t, err, globalsearch.ErrNotFound)
		})
	}
}
