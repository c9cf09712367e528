package workflow_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// A Map output that leaves a batch out (no answer stored, no failure
// reported: an iteration lost on the way) must not let reduce report more
// than the map stage delivered.
func TestReduceCountsLostBatchAsFailed(t *testing.T) {
	cases := []struct {
		name       string
		mapped     []int
		payload    string
		wantType   string
		wantStatus globalsearch.Status
		wantFailed []int
		wantCalls  int // map calls the stored result counts: a lost batch's are unknown, so none
	}{
		{name: "batch 1 left out", mapped: []int{0, 2},
			payload:    `{"queryId":"q1","mapResults":[{"batchIndex":0,"usefulness":60},{"batchIndex":2,"usefulness":60}]}`,
			wantStatus: globalsearch.StatusPartial, wantFailed: []int{1}, wantCalls: 2},
		{name: "batch 1 left out, batch 0 reported failed", mapped: []int{2},
			payload:    `{"queryId":"q1","mapResults":[{"failed":true,"batchIndex":0,"error":"ModelError"},{"batchIndex":2,"usefulness":60}]}`,
			wantStatus: globalsearch.StatusPartial, wantFailed: []int{0, 1}, wantCalls: 3},
		{name: "every batch left out", payload: `{"queryId":"q1","mapResults":[]}`,
			wantType: "AllBatchesFailedError", wantStatus: globalsearch.StatusFailed, wantFailed: []int{0, 1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, answering(60))
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
				assert.JSONEq(t, `{"queryId":"q1","status":"`+string(tc.wantStatus)+`"}`, out)
			}
			res, err := s.Result(context.Background(), "q1")
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, res.Status)
			assert.Equal(t, len(tc.wantFailed), res.FailedMapBatches)
			var failed []int
			for _, f := range res.MapErrors {
				failed = append(failed, f.BatchIndex)
				assert.Equal(t, res.Diagnostics.Batches[f.BatchIndex].CommunityIDs, f.CommunityIDs)
				if f.BatchIndex == 1 {
					assert.Equal(t, "no map answer was recorded for this batch", f.Message)
				}
			}
			assert.Equal(t, tc.wantFailed, failed)
			assert.Equal(t, tc.wantCalls, res.Diagnostics.Map.ModelCalls)
		})
	}
}

// docs/contract.md#map-calls on AWS: the state machine's Retry is the second attempt. The
// map function records the attempt number it is given, a second attempt's
// answer replaces anything the first saved, and the result counts both
// calls.
func TestMapSecondAttempt(t *testing.T) {
	cases := []struct {
		name        string
		firstFails  bool
		wantFirst   string // error type of attempt 1; "" when it answers
		wantAnswers int    // answers stored after attempt 1
	}{
		{name: "first attempt fails, second answers", firstFails: true, wantFirst: "ModelError"},
		{name: "first attempt answered but its success was lost", wantAnswers: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			model := &fakeModel{complete: func(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
				if req.Stage == globalsearch.StageReduce {
					return globalsearch.ModelResponse{Text: `{"answer":"final answer"}`}, nil
				}
				n := calls.Add(1)
				if n == 1 && tc.firstFails {
					return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel, "ServiceUnavailableException")
				}
				return globalsearch.ModelResponse{Text: `{"answer":"answer of call ` + itoa(int(n)) + `","usefulness":` + itoa(10*int(n)) + `}`}, nil
			}}
			h, s := fixture(t, model)
			ctx := context.Background()
			_, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1"}}`)
			require.NoError(t, err)
			plan, err := s.Plan(ctx, "q1")
			require.NoError(t, err)

			_, err = invoke(t, h.Map, `{"queryId":"q1","batchIndex":1,"attempt":1}`)
			if tc.wantFirst != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantFirst, workflow.ErrorType(err))
			} else {
				require.NoError(t, err)
			}
			answers, err := s.MapAnswers(ctx, "q1", plan.RunID)
			require.NoError(t, err)
			require.Len(t, answers, tc.wantAnswers)

			out, err := invoke(t, h.Map, `{"queryId":"q1","batchIndex":1,"attempt":2}`)
			require.NoError(t, err)
			assert.JSONEq(t, `{"batchIndex":1,"usefulness":20}`, out)
			answers, err = s.MapAnswers(ctx, "q1", plan.RunID)
			require.NoError(t, err)
			require.Len(t, answers, 1, "one answer per batch")
			assert.Equal(t, 2, answers[0].Attempts)
			assert.Equal(t, "answer of call 2", answers[0].Answer)

			for _, i := range []int{0, 2} {
				_, err := invoke(t, h.Map, `{"queryId":"q1","batchIndex":`+itoa(i)+`,"attempt":1}`)
				require.NoError(t, err)
			}
			_, err = invoke(t, h.Reduce, `{"queryId":"q1","mapResults":[{"batchIndex":0},{"batchIndex":1},{"batchIndex":2}]}`)
			require.NoError(t, err)
			res, err := s.Result(ctx, "q1")
			require.NoError(t, err)
			assert.Equal(t, globalsearch.StatusCompleted, res.Status)
			assert.Equal(t, 4, res.Diagnostics.Map.ModelCalls, "the second attempt is a model call")
			assert.Equal(t, 5, res.Diagnostics.ModelCalls)
			assert.Equal(t, []globalsearch.MapScore{{BatchIndex: 0, Usefulness: 30}, {BatchIndex: 1, Usefulness: 20}, {BatchIndex: 2, Usefulness: 40}},
				res.Diagnostics.MapScores, "batch 1 scored by its second attempt")
		})
	}
}
