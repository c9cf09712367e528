package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// roundRecords are the groups and group answers of tree reduces
// (globalsearch.ReduceRounds).
type roundRecords = runItems[globalsearch.ReduceGroup, globalsearch.GroupAnswer]

func cloneGroup(g globalsearch.ReduceGroup) globalsearch.ReduceGroup {
	g.Candidates = slices.Clone(g.Candidates)
	for i := range g.Candidates {
		g.Candidates[i].CommunityIDs = slices.Clone(g.Candidates[i].CommunityIDs)
	}
	return g
}

func cloneGroupAnswer(a globalsearch.GroupAnswer) globalsearch.GroupAnswer {
	a.CitedCommunityIDs = slices.Clone(a.CitedCommunityIDs)
	return a
}

// SaveReduceGroups implements globalsearch.ReduceRounds.
func (s *Store) SaveReduceGroups(_ context.Context, queryID, runID string, groups []globalsearch.ReduceGroup) error {
	for _, g := range groups {
		if err := globalsearch.CheckGroupKey(queryID, g.Round, g.Index); err != nil {
			return err
		}
	}
	s.rounds.save(runKey{queryID, runID}, groups, func(g globalsearch.ReduceGroup) (int, int) { return g.Round, g.Index }, cloneGroup)
	return nil
}

// ReduceGroup implements globalsearch.ReduceRounds.
func (s *Store) ReduceGroup(_ context.Context, queryID, runID string, round, index int) (globalsearch.ReduceGroup, error) {
	what := fmt.Sprintf("reduce group %d of round %d of query %s", index, round, queryID)
	return s.rounds.item(runKey{queryID, runID}, s.currentRun(queryID), round, index, what, cloneGroup)
}

// AddGroupAnswer implements globalsearch.ReduceRounds.
func (s *Store) AddGroupAnswer(_ context.Context, queryID, runID string, a globalsearch.GroupAnswer) error {
	if err := globalsearch.CheckGroupKey(queryID, a.Round, a.Index); err != nil {
		return err
	}
	s.rounds.add(runKey{queryID, runID}, a.Round, a.Index, func(got *globalsearch.GroupAnswer) {
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
	})
	return nil
}

// GroupAnswers implements globalsearch.ReduceRounds.
func (s *Store) GroupAnswers(_ context.Context, queryID, runID string) ([]globalsearch.GroupAnswer, error) {
	return s.rounds.list(runKey{queryID, runID}, cloneGroupAnswer), nil
}
