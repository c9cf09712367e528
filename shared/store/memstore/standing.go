package memstore

import (
	"context"
	"fmt"
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
	defer s.standing.mu.Unlock()
	return s.standing.read(namespace, name)
}

// read decodes the record of name in namespace; the caller holds mu.
func (r *standingRecords) read(namespace, name string) (globalsearch.StandingRecord, error) {
	data, ok := r.records[[2]string{namespace, name}]
	if !ok {
		return globalsearch.StandingRecord{}, globalsearch.ErrNotFound
	}
	rec, err := globalsearch.DecodeStandingRecord(data)
	if err != nil {
		where := fmt.Sprintf("kept in memory for namespace %s", namespace)
		return globalsearch.StandingRecord{}, globalsearch.UnreadableStandingRecord(name, where, err)
	}
	return rec, nil
}

// SaveStandingRecord implements globalsearch.Standing: under one lock, the
// stored record is read and globalsearch.ReplaceStanding decides.
func (s *Store) SaveStandingRecord(ctx context.Context, r globalsearch.StandingRecord, reset bool) error {
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
	s.standing.mu.Lock()
	defer s.standing.mu.Unlock()
	old, err := s.standing.read(r.Namespace, r.Name)
	if ok, err := globalsearch.ReplaceStanding(r, old, err, reset); !ok || err != nil {
		return err
	}
	if s.standing.records == nil {
		s.standing.records = map[[2]string][]byte{}
	}
	s.standing.records[[2]string{r.Namespace, r.Name}] = data
	return nil
}
