package memstore

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var (
	_ globalsearch.Progress = (*Store)(nil)
	_ globalsearch.Cancels  = (*Store)(nil)
)

// cancelledRun is the run of a cancelled query id's result: no run id
// equals it, so no run can save a result any more, as on the DynamoDB
// store.
const cancelledRun = "(ended)"

// MapProgress implements globalsearch.Progress. Nothing in one process
// records a failed batch in the store (the engine keeps its failures until
// reduce), so Failed is always 0 here.
func (s *Store) MapProgress(_ context.Context, queryID string) (globalsearch.MapProgress, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.plans[queryID]
	if !ok {
		return globalsearch.MapProgress{}, fmt.Errorf("map progress of query %s: %w", queryID, globalsearch.ErrNotFound)
	}
	return globalsearch.MapProgress{Done: len(s.answers[runKey{queryID, p.RunID}]), Total: len(p.Batches)}, nil
}

// CancelResult implements globalsearch.Cancels, as the DynamoDB store's
// conditional update does (docs/contract.md#cancel).
func (s *Store) CancelResult(_ context.Context, r globalsearch.Result, owner string) error {
	if r.QueryID == "" || r.Status != globalsearch.StatusCancelled || owner == "" {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "cancel query %q: the result must be cancelled (is %q) and name its owner", r.QueryID, r.Status)
	}
	var copied globalsearch.Result
	if err := deepCopy(r, &copied); err != nil {
		return err
	}
	id := r.QueryID
	s.mu.Lock()
	defer s.mu.Unlock()
	have, ok := s.owner[id]
	switch {
	case !ok || have != owner:
		return fmt.Errorf("cancel result of query %s: %w", id, globalsearch.ErrNotFound)
	case s.cancelled(id):
		return nil
	}
	if res, ok := s.results[id]; ok {
		return globalsearch.Errorf(globalsearch.KindConflict, "cancel query %s: the run already ended (%s)", id, res.Status)
	}
	s.results[id] = copied
	s.resultRun[id] = cancelledRun
	return nil
}

// cancelled reports whether a query id's result is cancelled; s.mu is held.
func (s *Store) cancelled(queryID string) bool {
	res, ok := s.results[queryID]
	return ok && res.Status == globalsearch.StatusCancelled
}
