package memstore

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.StoppedResults = (*Store)(nil)

// ResultState implements globalsearch.StoppedResults. The embedded store
// has no state machine writing failures of its own, so a result it holds
// is always whole.
func (s *Store) ResultState(_ context.Context, queryID string) (globalsearch.ResultState, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	owner, ok := s.owner[queryID]
	if !ok {
		return globalsearch.ResultState{}, fmt.Errorf("result of query %s: %w", queryID, globalsearch.ErrNotFound)
	}
	st := globalsearch.ResultState{Owner: owner, Status: globalsearch.StatusRunning, RunID: s.resultRun[queryID]}
	if res, ok := s.results[queryID]; ok {
		st.Status, st.Saved = res.Status, true
	}
	return st, nil
}

// RecordStopped implements globalsearch.StoppedResults under the store's
// lock, on the conditions the DynamoDB store's write holds.
func (s *Store) RecordStopped(_ context.Context, r globalsearch.Result, was globalsearch.ResultState) error {
	if r.QueryID == "" || was.Owner == "" || was.Saved {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "record stopped query %q: the state must name its owner and hold no result", r.QueryID)
	}
	var copied globalsearch.Result
	if err := deepCopy(r, &copied); err != nil {
		return err
	}
	id := r.QueryID
	s.mu.Lock()
	defer s.mu.Unlock()
	_, saved := s.results[id]
	if owner, ok := s.owner[id]; !ok || owner != was.Owner || saved || s.resultRun[id] != was.RunID || was.Status != globalsearch.StatusRunning {
		return fmt.Errorf("record stopped result of query %s: it changed since it was read: %w", id, globalsearch.ErrNotFound)
	}
	s.results[id] = copied
	s.resultRun[id] = cancelledRun
	return nil
}
