package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
// group with the run's expiry (runExpiry), every item encoded and
// size-checked before anything is written.
func (s *Runs) SaveReduceGroups(ctx context.Context, queryID, runID string, groups []globalsearch.ReduceGroup) error {
	items := make([]runItem, len(groups))
	for i := range groups {
		g := groups[i]
		if err := globalsearch.CheckGroupKey(queryID, g.Round, g.Index); err != nil {
			return err
		}
		items[i] = runItem{QueryID: queryID, SK: reduceGroupSK(runID, g.Round, g.Index), RunID: runID, ReduceGroup: &g}
		if _, err := s.marshalRun(groupWhat("reduce group", queryID, g.Round, g.Index), items[i]); err != nil {
			return err
		}
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return err
	}
	puts := make([]types.WriteRequest, 0, len(items))
	for _, it := range items {
		it.ExpiresAt = exp
		m, err := s.marshalRun(groupWhat("reduce group", queryID, it.ReduceGroup.Round, it.ReduceGroup.Index), it)
		if err != nil {
			return err
		}
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	}
	if err := s.batchWrite(ctx, s.table, puts); err != nil {
		return fmt.Errorf("save reduce groups of query %s: %w", queryID, err)
	}
	return nil
}

// ReduceGroup implements globalsearch.ReduceRounds: the plan item names
// the current run (a projected GetItem), whose group is one more read.
func (s *Runs) ReduceGroup(ctx context.Context, queryID, runID string, round, index int) (globalsearch.ReduceGroup, error) {
	what := groupWhat("reduce group", queryID, round, index)
	if err := globalsearch.CheckGroupKey(queryID, round, index); err != nil {
		return globalsearch.ReduceGroup{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	plan, err := s.get(ctx, "plan of query "+queryID, queryID, skPlan, attrQueryID, attrSK, TTLAttribute, "plan.runId")
	if err != nil {
		return globalsearch.ReduceGroup{}, err
	}
	if plan.Plan == nil || plan.Plan.RunID != runID {
		return globalsearch.ReduceGroup{}, fmt.Errorf("%s: run %s is not the current run: %w", what, runID, globalsearch.ErrNotFound)
	}
	it, err := s.get(ctx, what, queryID, reduceGroupSK(runID, round, index))
	if err != nil {
		return globalsearch.ReduceGroup{}, err
	}
	if it.ReduceGroup == nil || it.RunID != runID {
		return globalsearch.ReduceGroup{}, fmt.Errorf("%s has no reduce group of run %s: %w", what, runID, globalsearch.ErrNotFound)
	}
	return *it.ReduceGroup, nil
}

// maxGroupErrorBytes bounds the error a group answer item keeps: it only
// says why the group has no answer.
const maxGroupErrorBytes = 2048

// AddGroupAnswer implements globalsearch.ReduceRounds with one UpdateItem:
// the counters are ADDed, so concurrent or retried attempts never lose a
// call, and the answer or error is SET; the item expires with its run.
func (s *Runs) AddGroupAnswer(ctx context.Context, queryID, runID string, a globalsearch.GroupAnswer) error {
	if err := globalsearch.CheckGroupKey(queryID, a.Round, a.Index); err != nil {
		return err
	}
	what := groupWhat("group answer", queryID, a.Round, a.Index)
	up := expression.Add(expression.Name("calls"), expression.Value(a.Calls)).
		Add(expression.Name("inputTokens"), expression.Value(a.InputTokens)).
		Add(expression.Name("outputTokens"), expression.Value(a.OutputTokens)).
		Set(expression.Name("round"), expression.Value(a.Round)).
		Set(expression.Name("batchIndex"), expression.Value(a.Index)).
		Set(expression.Name(attrRunID), expression.Value(runID))
	if a.Done {
		done := globalsearch.GroupAnswer{Done: true, Answer: a.Answer, Usefulness: a.Usefulness,
			CitedCommunityIDs: a.CitedCommunityIDs, InvalidCitations: a.InvalidCitations}
		av, err := attributevalue.MarshalWithOptions(done, jsonTags)
		if err != nil {
			return fmt.Errorf("encode %s: %w", what, err)
		}
		if n := valueSize(av); n > MaxItemBytes {
			return globalsearch.Errorf(globalsearch.KindInvalidInput, "%s is %d bytes, over the %d-byte item limit", what, n, MaxItemBytes)
		}
		up = up.Set(expression.Name("groupAnswer"), expression.Value(av))
	}
	if a.Error != "" {
		up = up.Set(expression.Name("groupError"), expression.Value(truncate(a.Error, maxGroupErrorBytes))).
			Set(expression.Name("groupErrorKind"), expression.Value(int(a.ErrorKind)))
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithUpdate(up.Set(expression.Name(TTLAttribute), expression.Value(exp))).Build()
	if err != nil {
		return fmt.Errorf("build update of %s: %w", what, err)
	}
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, groupAnswerSK(runID, a.Round, a.Index)}, jsonTags)
	if err != nil {
		return fmt.Errorf("encode key of %s: %w", what, err)
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: key, UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		return wrap(err, "save %s", what)
	}
	return nil
}

// GroupAnswers implements globalsearch.ReduceRounds: one paginated Query
// of the run's group answer items, in sort-key order (round, then index).
func (s *Runs) GroupAnswers(ctx context.Context, queryID, runID string) ([]globalsearch.GroupAnswer, error) {
	items, err := s.query(ctx, "group answers of query "+queryID, queryID, expression.Key(attrSK).BeginsWith(groupAnswerPrefix(runID)))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.GroupAnswer, 0, len(items))
	for _, it := range items {
		if it.Round == nil || it.BatchIndex == nil || it.RunID != runID {
			continue // not a group answer of this run: a corrupt item
		}
		a := globalsearch.GroupAnswer{Round: *it.Round, Index: *it.BatchIndex, Calls: it.Calls,
			InputTokens: it.InTokens, OutputTokens: it.OutTokens, Error: it.GroupError, ErrorKind: globalsearch.Kind(it.GroupErrorKind)}
		if g := it.GroupAnswer; g != nil && g.Done {
			a.Done, a.Answer, a.Usefulness, a.CitedCommunityIDs, a.InvalidCitations = true, g.Answer, g.Usefulness, g.CitedCommunityIDs, g.InvalidCitations
		}
		out = append(out, a)
	}
	return out, nil
}
