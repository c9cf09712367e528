package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// groupKey keys one reduce group of one run.
type groupKey struct {
	run          runKey
	round, index int
}

// roundRecords are the groups and group answers of tree reduces
// (globalsearch.ReduceRounds), keyed by run as the runs table keys them.
type roundRecords struct {
	mu      sync.Mutex
	groups  map[groupKey]globalsearch.ReduceGroup
	answers map[groupKey]globalsearch.GroupAnswer
}

// dropRun forgets the groups and group answers of run.
func (r *roundRecords) dropRun(run runKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	maps.DeleteFunc(r.groups, func(k groupKey, _ globalsearch.ReduceGroup) bool { return k.run == run })
	maps.DeleteFunc(r.answers, func(k groupKey, _ globalsearch.GroupAnswer) bool { return k.run == run })
}

func cloneGroup(g globalsearch.ReduceGroup) globalsearch.ReduceGroup {
	g.Candidates = slices.Clone(g.Candidates)
	for i := range g.Candidates {
		g.Candidates[i].CommunityIDs = slices.Clone(g.Candidates[i].CommunityIDs)
	}
	return g
}

// SaveReduceGroups implements globalsearch.ReduceRounds.
func (s *Store) SaveReduceGroups(_ context.Context, queryID, runID string, groups []globalsearch.ReduceGroup) error {
	for _, g := range groups {
		if err := globalsearch.CheckGroupKey(queryID, g.Round, g.Index); err != nil {
			return err
		}
	}
	r := &s.rounds
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.groups == nil {
		r.groups = map[groupKey]globalsearch.ReduceGroup{}
	}
	for _, g := range groups {
		r.groups[groupKey{runKey{queryID, runID}, g.Round, g.Index}] = cloneGroup(g)
	}
	return nil
}

// ReduceGroup implements globalsearch.ReduceRounds.
func (s *Store) ReduceGroup(_ context.Context, queryID, runID string, round, index int) (globalsearch.ReduceGroup, error) {
	s.mu.RLock()
	current := s.plans[queryID].RunID
	s.mu.RUnlock()
	if current != runID {
		return globalsearch.ReduceGroup{}, fmt.Errorf("reduce group %d of round %d of query %s: run %s is not the current run: %w", index, round, queryID, runID, globalsearch.ErrNotFound)
	}
	r := &s.rounds
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.groups[groupKey{runKey{queryID, runID}, round, index}]
	if !ok {
		return globalsearch.ReduceGroup{}, fmt.Errorf("reduce group %d of round %d of query %s: %w", index, round, queryID, globalsearch.ErrNotFound)
	}
	return cloneGroup(g), nil
}

// AddGroupAnswer implements globalsearch.ReduceRounds.
func (s *Store) AddGroupAnswer(_ context.Context, queryID, runID string, a globalsearch.GroupAnswer) error {
	if err := globalsearch.CheckGroupKey(queryID, a.Round, a.Index); err != nil {
		return err
	}
	r := &s.rounds
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answers == nil {
		r.answers = map[groupKey]globalsearch.GroupAnswer{}
	}
	k := groupKey{runKey{queryID, runID}, a.Round, a.Index}
	got := r.answers[k]
	got.Round, got.Index = a.Round, a.Index
	got.Calls += a.Calls
	got.InputTokens += a.InputTokens
	got.OutputTokens += a.OutputTokens
	if a.Done {
		got.Done, got.Answer, got.Usefulness = true, a.Answer, a.Usefulness
		got.CitedCommunityIDs, got.InvalidCitations = slices.Clone(a.CitedCommunityIDs), a.InvalidCitations
	}
	if a.Error != "" {
		got.Error, got.ErrorKind = a.Error, a.ErrorKind
	}
	r.answers[k] = got
	return nil
}

// GroupAnswers implements globalsearch.ReduceRounds.
func (s *Store) GroupAnswers(_ context.Context, queryID, runID string) ([]globalsearch.GroupAnswer, error) {
	r := &s.rounds
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []globalsearch.GroupAnswer
	for k, a := range r.answers {
		if k.run == (runKey{queryID, runID}) {
			a.CitedCommunityIDs = slices.Clone(a.CitedCommunityIDs)
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b globalsearch.GroupAnswer) int {
		return cmp.Or(cmp.Compare(a.Round, b.Round), cmp.Compare(a.Index, b.Index))
	})
	return out, nil
}
