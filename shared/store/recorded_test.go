package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// TestRecordedFailure reads result items of the shape the state machine's
// RecordFailure state writes (statemachine/globalsearch.asl.json): no
// resultGzip, the caught error's name in error, the caught error as JSON
// in cause. The end-to-end suite writes them through Step Functions.
func TestRecordedFailure(t *testing.T) {
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	s := newRuns(t, client, tables.Runs)
	ctx := context.Background()
	cases := []struct {
		name      string
		item      map[string]string
		wantError string
		wantAt    time.Time
		// wantErr is part of the error of an item that is no recorded
		// failure; wantNotFound, that the item reads as no result yet.
		wantErr      string
		wantNotFound bool
	}{
		{
			name: "crashed runtime",
			item: map[string]string{
				"error":    "Runtime.ExitError",
				"cause":    `{"Error":"Runtime.ExitError","Cause":"{\"errorType\":\"Runtime.ExitError\",\"errorMessage\":\"RequestId: 1 Error: Runtime exited with error: signal: killed\"}"}`,
				"failedAt": "2026-12-01T02:03:04.5Z",
			},
			wantError: "Runtime.ExitError: RequestId: 1 Error: Runtime exited with error: signal: killed",
			wantAt:    time.Date(2026, 12, 1, 2, 3, 4, 5e8, time.UTC),
		},
		{
			name:      "timeout without a cause",
			item:      map[string]string{"error": "States.Timeout", "cause": `{"Error":"States.Timeout","Cause":null}`, "failedAt": "2026-12-01T02:03:04Z"},
			wantError: "States.Timeout: no cause was given",
			wantAt:    time.Date(2026, 12, 1, 2, 3, 4, 0, time.UTC),
		},
		{
			name:      "plain-text cause",
			item:      map[string]string{"error": "Lambda.ServiceException", "cause": `{"Error":"Lambda.ServiceException","Cause":"Rate exceeded"}`},
			wantError: "Lambda.ServiceException: Rate exceeded",
		},
		{
			name:      "cause that is not JSON",
			item:      map[string]string{"error": "States.TaskFailed", "cause": "boom"},
			wantError: "States.TaskFailed: boom",
		},
		{
			name:    "no error name",
			item:    map[string]string{"cause": "{}"},
			wantErr: `no resultGzip, and not a failure the state machine recorded (status "failed")`,
		},
		{
			// A status without resultGzip is what a claim or a plan
			// writes: the run has no result yet.
			name:         "not failed",
			item:         map[string]string{"status": "completed", "error": "X"},
			wantNotFound: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "recorded-" + tc.name[:4] + "-" + time.Now().Format("150405.000000000")
			item := map[string]types.AttributeValue{
				"queryId": &types.AttributeValueMemberS{Value: id},
				"sk":      &types.AttributeValueMemberS{Value: "result"},
				"status":  &types.AttributeValueMemberS{Value: "failed"},
			}
			for k, v := range tc.item {
				item[k] = &types.AttributeValueMemberS{Value: v}
			}
			_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tables.Runs), Item: item})
			require.NoError(t, err)

			res, err := s.Result(ctx, id)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "result of query "+id+": "+tc.wantErr)
				assert.Equal(t, globalsearch.KindInternal, globalsearch.KindOf(err), "a corrupt item, not a missing one")
				return
			}
			if tc.wantNotFound {
				assert.ErrorIs(t, err, globalsearch.ErrNotFound)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, id, res.QueryID)
			assert.Equal(t, globalsearch.StatusFailed, res.Status)
			assert.Equal(t, tc.wantError, res.Error)
			assert.True(t, tc.wantAt.Equal(res.Diagnostics.FinishedAt), "finishedAt %s", res.Diagnostics.FinishedAt)
			assert.NotNil(t, res.MapErrors, "the result reads like any other: empty lists, not null")
		})
	}
}
