package store_test

import (
	"context"
	"fmt"
	"strconv"
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

// failureItem is an item of the shape the Distributed Map's
// RecordBatchFailure state writes (statemachine/globalsearch.asl.json):
// every number as DynamoDB N, the index unpadded in the sort key. The
// end-to-end suite writes them through Step Functions.
func failureItem(queryID, runID string, index int, errName string, expiresAt int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"queryId":    &types.AttributeValueMemberS{Value: queryID},
		"sk":         &types.AttributeValueMemberS{Value: fmt.Sprintf("map-failure#%s#%d", runID, index)},
		"runId":      &types.AttributeValueMemberS{Value: runID},
		"batchIndex": &types.AttributeValueMemberN{Value: strconv.Itoa(index)},
		"error":      &types.AttributeValueMemberS{Value: errName},
		"expiresAt":  &types.AttributeValueMemberN{Value: strconv.FormatInt(expiresAt, 10)},
	}
}

func TestMapFailures(t *testing.T) {
	client := testenv.Minidyn(t)
	tables := newTables(t, client)
	s := newRuns(t, client, tables.Runs)
	ctx := context.Background()
	later, earlier := time.Now().Add(time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
	put := func(it map[string]types.AttributeValue) {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tables.Runs), Item: it})
		require.NoError(t, err)
	}
	put(failureItem("q1", "run1", 1, "ModelError", later))
	put(failureItem("q1", "run1", 12, "Lambda.TooManyRequestsException", later))
	put(failureItem("q1", "run1", 3, "States.Timeout", earlier)) // expired: ignored
	put(failureItem("q1", "run10", 2, "ModelError", later))      // another run, its id a prefix-sibling
	put(failureItem("q2", "run1", 5, "ModelError", later))       // another query
	broken := failureItem("q3", "run1", 0, "ModelError", later)
	delete(broken, "error")
	put(broken)
	// Under run1's key but naming another run: the run filter refuses it
	// rather than count another run's failure.
	foreign := failureItem("q4", "run1", 0, "ModelError", later)
	foreign["runId"] = &types.AttributeValueMemberS{Value: "run2"}
	put(foreign)

	cases := []struct {
		name             string
		queryID, runID   string
		want             map[int]string
		wantKind         globalsearch.Kind
		wantErrSubstring string
	}{
		{name: "this run's live failures", queryID: "q1", runID: "run1", want: map[int]string{1: "ModelError", 12: "Lambda.TooManyRequestsException"}},
		{name: "a run without failures", queryID: "q1", runID: "run2", want: map[int]string{}},
		{name: "other query", queryID: "q2", runID: "run1", want: map[int]string{5: "ModelError"}},
		{name: "an item that is no failure", queryID: "q3", runID: "run1", wantKind: globalsearch.KindInternal, wantErrSubstring: "is not a recorded map failure"},
		{name: "an item of another run under this run's key", queryID: "q4", runID: "run1", wantKind: globalsearch.KindInternal, wantErrSubstring: "is not a recorded map failure"},
		{name: "no run id", queryID: "q1", wantKind: globalsearch.KindInvalidInput, wantErrSubstring: "runId must not be empty"},
		{name: "no query id", runID: "run1", wantKind: globalsearch.KindInvalidInput, wantErrSubstring: "queryId must not be empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.MapFailures(ctx, tc.queryID, tc.runID)
			if tc.wantErrSubstring != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErrSubstring)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
