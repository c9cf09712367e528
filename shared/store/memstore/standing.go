package memstore

import (
	"context"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.Standing = (*Store)(nil)

// standingRecords are the standing records of a Store, kept encoded as
// the runs table keeps them, so the same cap applies
// (docs/contract.md#standing-questions).
type standingRecords struct {
	mu      sync.Mutex
	records map[[2]string][]byte
}

// StandingRecord implements globalsearch.Standing.
func (s *Store) StandingRecord(ctx context.Context, namespace, name string) (globalsearch.StandingRecord, error) {
	if err := globalsearch.CheckStandingKey(namespace, name); err != nil {
		return globalsearch.StandingRecord{}, err
	}
	if err := ctx.Err(); err != nil {
		return globalsearch.StandingRecord{}, err
	}
	s.standing.mu.Lock()
	data, ok := s.standing.records[[2]string{namespace, name}]
	s.standing.mu.Unlock()
	if !ok {
		return globalsearch.StandingRecord{}, globalsearch.ErrNotFound
	}
	return globalsearch.DecodeStandingRecord(data)
}

// SaveStandingRecord implements globalsearch.Standing.
func (s *Store) SaveStandingRecord(ctx context.Context, r globalsearch.StandingRecord) error {
	if err := globalsearch.CheckStandingKey(r.Namespace, r.Name); err != nil {
		return err
	}
	data, err := globalsearch.EncodeStandingRecord(r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	key := [2]string{r.Namespace, r.Name}
	s.standing.mu.Lock()
	defer s.standing.mu.Unlock()
	if old, ok := s.standing.records[key]; ok {
		if prev, err := globalsearch.DecodeStandingRecord(old); err == nil && prev.StartedAt.UnixMilli() > r.StartedAt.UnixMilli() {
			return nil
		}
	}
	if s.standing.records == nil {
		s.standing.records = map[[2]string][]byte{}
	}
	s.standing.records[key] = data
	return nil
}
