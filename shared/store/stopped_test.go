package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// recordFailure writes what the ASL's RecordFailure state writes
// (statemachine/globalsearch.asl.json, its own update and condition) for a
// States.Timeout of run runID of execution owner.
func recordFailure(t *testing.T, client store.DynamoDBAPI, table, queryID, owner, runID string) {
	t.Helper()
	raw, err := os.ReadFile("../../statemachine/globalsearch.asl.json")
	require.NoError(t, err)
	var asl struct {
		States map[string]struct {
			Parameters struct {
				UpdateExpression, ConditionExpression string
				ExpressionAttributeNames              map[string]string
			}
		}
	}
	require.NoError(t, json.Unmarshal(raw, &asl))
	p := asl.States["RecordFailure"].Parameters
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	_, err = client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String(table),
		Key:              map[string]types.AttributeValue{"queryId": s(queryID), "sk": s("result")},
		UpdateExpression: aws.String(p.UpdateExpression), ConditionExpression: aws.String(p.ConditionExpression),
		ExpressionAttributeNames: p.ExpressionAttributeNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":failed": s("failed"), ":error": s("States.Timeout"), ":cause": s(`{"Error":"States.Timeout","Cause":null}`),
			":failedAt": s("2026-12-01T02:03:04Z"), ":owner": s(owner), ":runId": s(runID),
		},
	})
	require.NoError(t, err)
}

// plannedRun claims queryID for owner, plans one run of two batches and
// saves their answers (attempts 1 and 2, 100 and 200 input tokens).
func plannedRun(t *testing.T, s *store.Runs, queryID, owner string) globalsearch.Plan {
	t.Helper()
	ctx := context.Background()
	p := globalsearch.Params{QueryID: queryID, Query: "What changed?", Namespace: "default", MapConcurrency: 1}
	_, _, err := s.CreateRequest(ctx, p, owner)
	require.NoError(t, err)
	plan := globalsearch.Plan{RunID: "run-" + queryID, Owner: owner, Params: p, SummaryCount: 2, CreatedAt: time.Now()}
	for i := range 2 {
		plan.Batches = append(plan.Batches, globalsearch.Batch{RunID: plan.RunID, Index: i, CommunityIDs: []string{"c"}, Content: "text"})
	}
	require.NoError(t, s.SavePlan(ctx, plan))
	for i := range 2 {
		require.NoError(t, s.SaveMapAnswer(ctx, queryID, plan.RunID, globalsearch.MapAnswer{BatchIndex: i, Answer: "a", Usefulness: 50,
			Attempts: i + 1, InputTokens: 100 * (i + 1), OutputTokens: 10}))
	}
	return plan
}

// TestStoppedCompletesRecordedFailure: a failure the state machine
// recorded itself (RecordFailure: no figures, the run named failedRunId)
// is completed with that run's spend by the record of its execution's end
// (docs/contract.md#stopped-executions); one recorded before any run
// (RecordPrepareFailure's shape) is left as it is.
func TestStoppedCompletesRecordedFailure(t *testing.T) {
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	s := newRuns(t, client, tables.Runs)
	ctx := context.Background()
	e := &globalsearch.Engine{Runs: s}

	plan := plannedRun(t, s, "q-recorded", "exec-1")
	recordFailure(t, client, tables.Runs, "q-recorded", "exec-1", plan.RunID)
	st, err := s.ResultState(ctx, "q-recorded")
	require.NoError(t, err)
	assert.Equal(t, plan.RunID, st.FailedRunID, "RecordFailure names the run it ended")
	assert.False(t, st.Saved)

	res, recorded, err := e.RecordStopped(ctx, "q-recorded", globalsearch.ExecutionEnd{Owner: "exec-1", Status: "FAILED"})
	require.NoError(t, err)
	require.True(t, recorded)
	stored, err := s.Result(ctx, "q-recorded")
	require.NoError(t, err)
	assert.Equal(t, res, stored)
	assert.Equal(t, globalsearch.StatusFailed, stored.Status)
	assert.Equal(t, "States.Timeout: no cause was given", stored.Error, "the recorded failure's own message")
	assert.Equal(t, 3, stored.Diagnostics.ModelCalls, "attempts 1 and 2 of the two answers")
	assert.Equal(t, 300, stored.Diagnostics.InputTokens)
	assert.Equal(t, "default", stored.Namespace)

	// RecordPrepareFailure's record: no run, so nothing to add.
	_, _, err = s.CreateRequest(ctx, globalsearch.Params{QueryID: "q-prepare-failed", Query: "q", Namespace: "default"}, "exec-1")
	require.NoError(t, err)
	_, err = client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(tables.Runs),
		Key:                       map[string]types.AttributeValue{"queryId": &types.AttributeValueMemberS{Value: "q-prepare-failed"}, "sk": &types.AttributeValueMemberS{Value: "result"}},
		UpdateExpression:          aws.String("SET #status = :failed, #error = :error"),
		ExpressionAttributeNames:  map[string]string{"#status": "status", "#error": "error"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":failed": &types.AttributeValueMemberS{Value: "failed"}, ":error": &types.AttributeValueMemberS{Value: "Runtime.ExitError"}},
	})
	require.NoError(t, err)
	_, recorded, err = e.RecordStopped(ctx, "q-prepare-failed", globalsearch.ExecutionEnd{Owner: "exec-1", Status: "FAILED"})
	require.NoError(t, err)
	assert.False(t, recorded, "a failure before any run made no call to add")
}

// TestRecordStoppedStoreFailures: a result item that cannot be read or
// written is an error naming the execution, and nothing is recorded; a
// spend that cannot be read is recorded as 0 rather than not at all.
func TestRecordStoppedStoreFailures(t *testing.T) {
	errTable := errors.New("table unreachable")
	cases := []struct {
		name     string
		fault    func(f *fakeClient)
		wantErr  bool
		recorded bool
	}{
		{"the result item unread", func(f *fakeClient) {
			f.getItem = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) { return nil, errTable }
		}, true, false},
		{"the record unwritten", func(f *fakeClient) {
			f.updateItem = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
				return nil, errTable
			}
		}, true, false},
		{"the spend unread", func(f *fakeClient) {
			f.query = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) { return nil, errTable }
		}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := testenv.Minidyn(t)
			tables := newTables(t, client)
			ctx := context.Background()
			plannedRun(t, newRuns(t, client, tables.Runs), "q-faulty", "exec-1")
			f := &fakeClient{next: client}
			tc.fault(f)
			s := newRuns(t, f, tables.Runs, store.WithBackoff(fastBackoff))
			res, recorded, err := (&globalsearch.Engine{Runs: s}).RecordStopped(ctx, "q-faulty", globalsearch.ExecutionEnd{Owner: "exec-1", Status: "ABORTED"})
			assert.Equal(t, tc.recorded, recorded)
			if tc.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "record stopped execution exec-1")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, globalsearch.StatusCancelled, res.Status)
			assert.Zero(t, res.Diagnostics.ModelCalls, "no figures could be read")
		})
	}
}
