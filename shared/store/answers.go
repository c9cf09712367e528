package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// SaveMapAnswer implements globalsearch.Answers: a put on the item of
// (query id, run id, batch index), so a retried map task overwrites, with
// the run's expiry (runExpiry: one small read of the plan item).
func (s *Runs) SaveMapAnswer(ctx context.Context, queryID, runID string, a globalsearch.MapAnswer) error {
	if err := requireQueryID(queryID); err != nil {
		return err
	}
	if a.BatchIndex < 0 || a.BatchIndex > maxBatchIndex {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "map answer of query %s: batch index %d out of range", queryID, a.BatchIndex)
	}
	what := fmt.Sprintf("map answer %d of query %s", a.BatchIndex, queryID)
	it := runItem{QueryID: queryID, SK: answerSK(runID, a.BatchIndex), ExpiresAt: s.expiresAt(), RunID: runID, Answer: &a}
	// Encoded and size-checked before anything is read.
	if _, err := s.marshalRun(what, it); err != nil {
		return err
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return err
	}
	it.ExpiresAt = exp
	return s.put(ctx, what, it)
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
