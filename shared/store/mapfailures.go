package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MapFailures returns the error name of every map batch of a run that the
// state machine's Distributed Map recorded as failed (RecordBatchFailure in
// statemachine/globalsearch.asl.json, a direct PutItem of queryId, sk,
// runId, batchIndex, error and expiresAt), by batch index. Reduce reads
// them so that no state payload grows with the batch count. Items of other
// runs are never read; expired ones are ignored like every other item.
func (s *Runs) MapFailures(ctx context.Context, queryID, runID string) (map[int]string, error) {
	if err := requireQueryID(queryID); err != nil {
		return nil, err
	}
	if runID == "" {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "map failures of query %s: runId must not be empty", queryID)
	}
	what := "recorded map failures of query " + queryID
	items, err := s.query(ctx, what, queryID, expression.Key(attrSK).BeginsWith(mapFailurePrefix(runID)))
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(items))
	for _, it := range items {
		if it.BatchIndex == nil || *it.BatchIndex < 0 || it.Error == "" || it.RunID != runID {
			return nil, globalsearch.Errorf(globalsearch.KindInternal, "%s: item %s is not a recorded map failure (batchIndex, error and runId %s)", what, it.SK, runID)
		}
		out[*it.BatchIndex] = it.Error
	}
	return out, nil
}
