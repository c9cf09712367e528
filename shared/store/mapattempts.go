package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.MapAttemptTallies = (*Runs)(nil)

// The tally of a map batch's attempts that no answer holds, one item per
// batch: map-attempt#<runId>#<index, 6 digits>, by run as the answers are.
// It follows runitems.go's rules for tallies; a map batch has no rounds,
// so its round is 0. Beside the counters every tally has, it counts the
// prompt-cache tokens (runItem's CacheRead and CacheWrite).
const (
	attrCacheRead  = "cacheReadInputTokens"
	attrCacheWrite = "cacheWriteInputTokens"
)

func mapAttemptPrefix(runID string) string { return prefixMapAttempt + runID + "#" }
func mapAttemptSK(runID string, i int) string {
	return mapAttemptPrefix(runID) + fmt.Sprintf(batchKeyFormat, i)
}

// AddMapAttempt implements globalsearch.MapAttemptTallies: the attempt's
// calls and tokens ADDed in one UpdateItem (addAttempt), the cache
// counters beside the others.
func (s *Runs) AddMapAttempt(ctx context.Context, queryID, runID string, a globalsearch.MapAttempt) error {
	if err := globalsearch.CheckMapAttemptKey(queryID, a.BatchIndex); err != nil {
		return err
	}
	return s.addAttempt(ctx, queryID, runID, attemptTally{
		what: fmt.Sprintf("map attempt at batch %d of query %s", a.BatchIndex, queryID),
		sk:   mapAttemptSK(runID, a.BatchIndex), index: a.BatchIndex,
		calls: a.Calls, inputTokens: a.InputTokens, outputTokens: a.OutputTokens,
		set: func(up expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			return up.Add(expression.Name(attrCacheRead), expression.Value(a.CacheReadInputTokens)).
				Add(expression.Name(attrCacheWrite), expression.Value(a.CacheWriteInputTokens)), nil
		},
	})
}

// MapAttempts implements globalsearch.MapAttemptTallies: the run's tally
// items in batch order.
func (s *Runs) MapAttempts(ctx context.Context, queryID, runID string) ([]globalsearch.MapAttempt, error) {
	items, err := s.tallies(ctx, "map attempts of query "+queryID, queryID, runID, mapAttemptPrefix(runID))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.MapAttempt, 0, len(items))
	for _, it := range items {
		out = append(out, globalsearch.MapAttempt{BatchIndex: *it.BatchIndex, Calls: it.Calls,
			InputTokens: it.InTokens, OutputTokens: it.OutTokens,
			CacheReadInputTokens: it.CacheRead, CacheWriteInputTokens: it.CacheWrite})
	}
	return out, nil
}
