package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MapProgress implements globalsearch.Progress (docs/contract.md#progress):
// one small read of the plan item (its run and batch count), then one
// counting Query (Select COUNT) over the run's answers and one over its
// recorded map failures, neither of which sends an item back. Items of
// other runs are never counted; expired ones are filtered out like every
// other read.
func (s *Runs) MapProgress(ctx context.Context, queryID string) (globalsearch.MapProgress, error) {
	what := "map progress of query " + queryID
	it, err := s.get(ctx, what, queryID, skPlan, attrQueryID, attrSK, TTLAttribute, "plan.runId", "plan.batchCount")
	if err != nil {
		return globalsearch.MapProgress{}, err
	}
	if it.Plan == nil || it.Plan.RunID == "" {
		return globalsearch.MapProgress{}, globalsearch.Errorf(globalsearch.KindInternal, "%s: the plan item names no run", what)
	}
	run := it.Plan.RunID
	done, err := s.count(ctx, "answers of "+what, queryID, answerPrefix(run))
	if err != nil {
		return globalsearch.MapProgress{}, err
	}
	failed, err := s.count(ctx, "failures of "+what, queryID, mapFailurePrefix(run))
	if err != nil {
		return globalsearch.MapProgress{}, err
	}
	return globalsearch.MapProgress{Done: done, Failed: failed, Total: it.Plan.BatchCount}, nil
}

// count counts the live items of a query id whose sort key begins with
// prefix.
func (s *Runs) count(ctx context.Context, what, queryID, prefix string) (int, error) {
	b := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrQueryID).Equal(expression.Value(queryID)).
			And(expression.Key(attrSK).BeginsWith(prefix))).
		WithFilter(s.live())
	n, err := s.countAll(ctx, s.table, b, true)
	if err != nil {
		return 0, wrap(err, "count %s", what)
	}
	return n, nil
}
