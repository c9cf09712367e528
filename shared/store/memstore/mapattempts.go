package memstore

import (
	"context"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// mapAttemptRecords are the tallies of the map attempts no answer holds
// (globalsearch.MapAttemptTallies). A tally has no work item of its own
// (its batch is the plan's) and no round: every one is at round 0.
type mapAttemptRecords = runItems[struct{}, globalsearch.MapAttempt]

// AddMapAttempt implements globalsearch.MapAttemptTallies.
func (s *Store) AddMapAttempt(_ context.Context, queryID, runID string, a globalsearch.MapAttempt) error {
	if err := globalsearch.CheckMapAttemptKey(queryID, a.BatchIndex); err != nil {
		return err
	}
	s.attempts.add(runKey{queryID, runID}, 0, a.BatchIndex, func(got *globalsearch.MapAttempt) {
		got.BatchIndex = a.BatchIndex
		got.Calls += a.Calls
		got.InputTokens += a.InputTokens
		got.OutputTokens += a.OutputTokens
		got.CacheReadInputTokens += a.CacheReadInputTokens
		got.CacheWriteInputTokens += a.CacheWriteInputTokens
	})
	return nil
}

// MapAttempts implements globalsearch.MapAttemptTallies.
func (s *Store) MapAttempts(_ context.Context, queryID, runID string) ([]globalsearch.MapAttempt, error) {
	return s.attempts.list(runKey{queryID, runID}, func(a globalsearch.MapAttempt) globalsearch.MapAttempt { return a }), nil
}
