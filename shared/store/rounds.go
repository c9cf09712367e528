package store

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.ReduceRounds = (*Runs)(nil)

// A tree reduce's groups and group answers (docs/contract.md#reduce-rounds),
// by run, round and index as rating batches are:
// reduce-group#<runId>#<round, 3 digits>#<index, 6 digits>.
const (
	prefixReduceGroup = "reduce-group#"
	prefixGroupAnswer = "group-answer#"
)

func reduceGroupSK(runID string, round, i int) string {
	return prefixReduceGroup + runID + "#" + fmt.Sprintf(ratingKeyFormat, round, i)
}
func groupAnswerPrefix(runID string) string { return prefixGroupAnswer + runID + "#" }
func groupAnswerSK(runID string, round, i int) string {
	return groupAnswerPrefix(runID) + fmt.Sprintf(ratingKeyFormat, round, i)
}

func groupWhat(kind, queryID string, round, index int) string {
	return fmt.Sprintf("%s %d of reduce round %d of query %s", kind, index, round, queryID)
}

// SaveReduceGroups implements globalsearch.ReduceRounds: one item per
// group (runitems.go's rules).
func (s *Runs) SaveReduceGroups(ctx context.Context, queryID, runID string, groups []globalsearch.ReduceGroup) error {
	items := make([]runItem, len(groups))
	for i := range groups {
		g := groups[i]
		if err := globalsearch.CheckGroupKey(queryID, g.Round, g.Index); err != nil {
			return err
		}
		items[i] = runItem{QueryID: queryID, SK: reduceGroupSK(runID, g.Round, g.Index), RunID: runID, ReduceGroup: &g}
	}
	return s.saveRunItems(ctx, queryID, runID, "save reduce groups", items, func(it runItem) string {
		return groupWhat("reduce group", queryID, it.ReduceGroup.Round, it.ReduceGroup.Index)
	})
}

// ReduceGroup implements globalsearch.ReduceRounds: the current run's
// group (currentRunItem).
func (s *Runs) ReduceGroup(ctx context.Context, queryID, runID string, round, index int) (globalsearch.ReduceGroup, error) {
	what := groupWhat("reduce group", queryID, round, index)
	if err := globalsearch.CheckGroupKey(queryID, round, index); err != nil {
		return globalsearch.ReduceGroup{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	it, err := s.currentRunItem(ctx, what, queryID, runID, reduceGroupSK(runID, round, index))
	if err != nil {
		return globalsearch.ReduceGroup{}, err
	}
	if it.ReduceGroup == nil {
		return globalsearch.ReduceGroup{}, fmt.Errorf("%s has no reduce group: %w", what, globalsearch.ErrNotFound)
	}
	return *it.ReduceGroup, nil
}

// AddGroupAnswer implements globalsearch.ReduceRounds: one attempt's
// calls and tokens, and its answer or error (addAttempt).
func (s *Runs) AddGroupAnswer(ctx context.Context, queryID, runID string, a globalsearch.GroupAnswer) error {
	if err := globalsearch.CheckGroupKey(queryID, a.Round, a.Index); err != nil {
		return err
	}
	what := groupWhat("group answer", queryID, a.Round, a.Index)
	var done any
	if a.Done {
		done = globalsearch.GroupAnswer{Done: true, Answer: a.Answer, Usefulness: a.Usefulness,
			CitedCommunityIDs: a.CitedCommunityIDs, InvalidCitations: a.InvalidCitations}
	}
	return s.addAttempt(ctx, queryID, runID, attemptTally{
		what: what, sk: groupAnswerSK(runID, a.Round, a.Index), round: a.Round, index: a.Index,
		calls: a.Calls, inputTokens: a.InputTokens, outputTokens: a.OutputTokens,
		set: setOutcome(what, "groupAnswer", done, "groupError", a.Error, a.ErrorKind),
	})
}

// GroupAnswers implements globalsearch.ReduceRounds: the run's group
// answer items in round, then index, order.
func (s *Runs) GroupAnswers(ctx context.Context, queryID, runID string) ([]globalsearch.GroupAnswer, error) {
	items, err := s.tallies(ctx, "group answers of query "+queryID, queryID, runID, groupAnswerPrefix(runID))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.GroupAnswer, 0, len(items))
	for _, it := range items {
		a := globalsearch.GroupAnswer{Round: *it.Round, Index: *it.BatchIndex, Calls: it.Calls,
			InputTokens: it.InTokens, OutputTokens: it.OutTokens, Error: it.GroupError, ErrorKind: globalsearch.Kind(it.GroupErrorKind)}
		if g := it.GroupAnswer; g != nil && g.Done {
			a.Done, a.Answer, a.Usefulness, a.CitedCommunityIDs, a.InvalidCitations = true, g.Answer, g.Usefulness, g.CitedCommunityIDs, g.InvalidCitations
		}
		out = append(out, a)
	}
	return out, nil
}
