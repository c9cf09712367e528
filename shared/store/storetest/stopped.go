package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The stopped-execution half of the runs suite
// (docs/contract.md#stopped-executions): Engine.RecordStopped over the
// store, so the record's conditions hold on every backend alike.

// stoppedRun plans queryID as execution owner's run, saves two map answers
// (attempts 1 and 2, 1000 and 1001 input tokens) and counts one reduce
// call, and returns the plan.
func stoppedRun(t *testing.T, s Store, queryID, owner string) globalsearch.Plan {
	t.Helper()
	ctx := context.Background()
	_, _, err := s.CreateRequest(ctx, sampleParams(queryID), owner)
	require.NoError(t, err)
	plan := samplePlan(queryID, 3)
	plan.Owner = owner
	require.NoError(t, s.SavePlan(ctx, plan))
	for i := range 2 {
		require.NoError(t, s.SaveMapAnswer(ctx, queryID, plan.RunID, sampleAnswer(i, "answer")))
	}
	_, err = s.AddReduceCall(ctx, queryID, plan.RunID)
	require.NoError(t, err)
	return plan
}

// stoppedCase is one case of testRecordStopped: what the store holds, how
// the execution ended, and what the record leaves.
type stoppedCase struct {
	name       string
	status     string
	setup      func(t *testing.T, id string)
	recorded   bool
	wantStatus globalsearch.Status // of the stored result afterwards; "" for none
	wantCalls  int
	wantIn     int
}

func stoppedCases(s Store) []stoppedCase {
	ctx := context.Background()
	return []stoppedCase{
		{name: "a stopped run reports what it spent", status: "ABORTED",
			setup:    func(t *testing.T, id string) { stoppedRun(t, s, id, "exec-1") },
			recorded: true, wantStatus: globalsearch.StatusCancelled, wantCalls: 1 + 2 + 1, wantIn: 1000 + 1001},
		{name: "a timed-out run fails with its spend", status: "TIMED_OUT",
			setup:    func(t *testing.T, id string) { stoppedRun(t, s, id, "exec-1") },
			recorded: true, wantStatus: globalsearch.StatusFailed, wantCalls: 4, wantIn: 2001},
		{name: "a selection still rating reports its rating calls", status: "ABORTED",
			setup: func(t *testing.T, id string) {
				_, _, err := s.CreateRequest(ctx, sampleParams(id), "exec-1")
				require.NoError(t, err)
				plan := samplePlan(id, 0)
				plan.Owner, plan.Selection = "exec-1", &globalsearch.SelectionReport{MostRatingCalls: 9}
				require.NoError(t, s.SavePlan(ctx, plan))
				require.NoError(t, s.SaveRatingBatches(ctx, id, plan.RunID, []globalsearch.RatingBatch{{Round: 1, Index: 0, CommunityIDs: []string{"c0"}, Content: "x"}}))
				for range 2 {
					require.NoError(t, s.AddRating(ctx, id, plan.RunID, globalsearch.Rating{Round: 1, BatchIndex: 0, Calls: 1, InputTokens: 300, OutputTokens: 20, Error: "timeout", ErrorKind: globalsearch.KindModel}))
				}
			},
			recorded: true, wantStatus: globalsearch.StatusCancelled, wantCalls: 2, wantIn: 600},
		{name: "a claim without a plan spent nothing", status: "ABORTED",
			setup: func(t *testing.T, id string) {
				_, _, err := s.CreateRequest(ctx, sampleParams(id), "exec-1")
				require.NoError(t, err)
			},
			recorded: true, wantStatus: globalsearch.StatusCancelled},
		{name: "a completed result is never overwritten", status: "FAILED",
			setup: func(t *testing.T, id string) {
				plan := stoppedRun(t, s, id, "exec-1")
				done := sampleResult(id, 3)
				done.Status = globalsearch.StatusCompleted
				require.NoError(t, s.SaveResult(ctx, done, plan.RunID))
			},
			wantStatus: globalsearch.StatusCompleted, wantCalls: 3 + 2},
		{name: "a replaced run writes nothing", status: "ABORTED",
			setup: func(t *testing.T, id string) {
				stoppedRun(t, s, id, "exec-1")
				next := samplePlan(id, 2)
				next.RunID, next.Owner = "run-next", "exec-2"
				require.NoError(t, s.SavePlan(ctx, next))
			}},
		{name: "an execution that never owned the id writes nothing", status: "ABORTED",
			setup: func(t *testing.T, id string) { stoppedRun(t, s, id, "exec-other") }},
		{name: "no result item", status: "ABORTED", setup: func(*testing.T, string) {}},
	}
}

func testRecordStopped(t *testing.T, s Store) {
	ctx := context.Background()
	prices := &globalsearch.Prices{Map: globalsearch.Price{In: 0.003, Out: 0.015}, Reduce: globalsearch.Price{In: 0.003, Out: 0.015}}
	e := &globalsearch.Engine{Runs: s, Prices: prices}
	tests := stoppedCases(s)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := "q-stopped-" + string(rune('a'+i))
			tc.setup(t, id)
			res, recorded, err := e.RecordStopped(ctx, id, globalsearch.ExecutionEnd{Owner: "exec-1", Status: tc.status, Error: "Cancelled"})
			require.NoError(t, err)
			assert.Equal(t, tc.recorded, recorded)
			stored, err := s.Result(ctx, id)
			if tc.wantStatus == "" {
				assertNotFound(t, err, "no result is written")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, stored.Status)
			assert.Equal(t, tc.wantCalls, stored.Diagnostics.ModelCalls)
			if !tc.recorded {
				return
			}
			assert.Equal(t, res, stored, "the result returned is the one stored")
			assert.Equal(t, tc.wantIn, stored.Diagnostics.InputTokens)
			assert.Equal(t, "default", stored.Namespace, "the request's fields")
			require.NotNil(t, stored.Diagnostics.Cost)
			assert.Equal(t, tc.wantCalls > 0, stored.Diagnostics.Cost.Total() > 0, "priced at the engine's prices")
			// The record ends the run: no step of it saves a result now,
			// and a second record writes nothing.
			assertNotFound(t, s.SaveResult(ctx, sampleResult(id, 1), "run-"+id), "a late result of the stopped run")
			_, again, err := e.RecordStopped(ctx, id, globalsearch.ExecutionEnd{Owner: "exec-1", Status: tc.status})
			require.NoError(t, err)
			assert.False(t, again, "a recorded result is never recorded over")
		})
	}
}
