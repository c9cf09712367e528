package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// SaveMapAnswer implements globalsearch.Answers: a put on the item of
// (query id, run id, batch index), so a retried map task overwrites.
func (s *Runs) SaveMapAnswer(ctx context.Context, queryID, runID string, a globalsearch.MapAnswer) error {
	if err := requireQueryID(queryID); err != nil {
		return err
	}
	if a.BatchIndex < 0 || a.BatchIndex > maxBatchIndex {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "map answer of query %s: batch index %d out of range", queryID, a.BatchIndex)
	}
	return s.put(ctx, fmt.Sprintf("map answer %d of query %s", a.BatchIndex, queryID),
		runItem{QueryID: queryID, SK: answerSK(runID, a.BatchIndex), ExpiresAt: s.expiresAt(), RunID: runID, Answer: &a})
}

// MapAnswers implements globalsearch.Answers; sort-key order is batch
// order.
func (s *Runs) MapAnswers(ctx context.Context, queryID, runID string) ([]globalsearch.MapAnswer, error) {
	items, err := s.query(ctx, "map answers of query "+queryID, queryID, expression.Key(attrSK).BeginsWith(answerPrefix(runID)))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.MapAnswer, 0, len(items))
	for _, it := range items {
		if it.Answer != nil {
			out = append(out, *it.Answer)
		}
	}
	return out, nil
}
