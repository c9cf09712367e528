package store

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A run's work items (a dynamic selection's rating batches, a tree
// reduce's groups) and the tallies of the attempts at them (ratings, group
// answers) live under the run in the runs table, keyed by round and index,
// and expire with it. The rules they share are here once: the inputs are
// saved whole or not at all, only the current run's input is read, and
// every attempt ADDs its calls and tokens so that concurrent or retried
// attempts never lose one.

// saveRunItems writes items, each named by what, with the run's expiry
// (runExpiry). Every item is encoded and size-checked before anything is
// written; saving names the whole write in its error.
func (s *Runs) saveRunItems(ctx context.Context, queryID, runID, saving string, items []runItem, what func(runItem) string) error {
	for _, it := range items {
		if _, err := s.marshalRun(what(it), it); err != nil {
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
		m, err := s.marshalRun(what(it), it)
		if err != nil {
			return err
		}
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	}
	if err := s.batchWrite(ctx, s.table, puts); err != nil {
		return fmt.Errorf("%s of query %s: %w", saving, queryID, err)
	}
	return nil
}

// currentRunItem reads the item at sk when runID is the query's current
// run: the plan item names it (a projected GetItem), and the item is one
// more read. A replaced run's items are not found, so a late step of it
// reads nothing it could act on.
func (s *Runs) currentRunItem(ctx context.Context, what, queryID, runID, sk string) (runItem, error) {
	plan, err := s.get(ctx, "plan of query "+queryID, queryID, skPlan, attrQueryID, attrSK, TTLAttribute, "plan.runId")
	if err != nil {
		return runItem{}, err
	}
	if plan.Plan == nil || plan.Plan.RunID != runID {
		return runItem{}, fmt.Errorf("%s: run %s is not the current run: %w", what, runID, globalsearch.ErrNotFound)
	}
	it, err := s.get(ctx, what, queryID, sk)
	if err != nil {
		return runItem{}, err
	}
	if it.RunID != runID {
		return runItem{}, fmt.Errorf("%s is not of run %s: %w", what, runID, globalsearch.ErrNotFound)
	}
	return it, nil
}

// attemptTally is one attempt's share of a tally item: what its counters
// ADD, where the item is, and the attributes it SETs (set: its outcome).
type attemptTally struct {
	what, sk                         string
	round, index                     int
	calls, inputTokens, outputTokens int
	set                              func(expression.UpdateBuilder) (expression.UpdateBuilder, error)
}

// addAttempt records one attempt with one UpdateItem: the counters are
// ADDed, the outcome SET, and the item expires with its run.
func (s *Runs) addAttempt(ctx context.Context, queryID, runID string, a attemptTally) error {
	up := expression.Add(expression.Name("calls"), expression.Value(a.calls)).
		Add(expression.Name("inputTokens"), expression.Value(a.inputTokens)).
		Add(expression.Name("outputTokens"), expression.Value(a.outputTokens)).
		Set(expression.Name("round"), expression.Value(a.round)).
		Set(expression.Name("batchIndex"), expression.Value(a.index)).
		Set(expression.Name(attrRunID), expression.Value(runID))
	up, err := a.set(up)
	if err != nil {
		return err
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithUpdate(up.Set(expression.Name(TTLAttribute), expression.Value(exp))).Build()
	if err != nil {
		return fmt.Errorf("build update of %s: %w", a.what, err)
	}
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, a.sk}, jsonTags)
	if err != nil {
		return fmt.Errorf("encode key of %s: %w", a.what, err)
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: key, UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		return wrap(err, "save %s", a.what)
	}
	return nil
}

// maxAttemptErrorBytes bounds the error a tally item keeps: it only says
// why the attempt has no outcome.
const maxAttemptErrorBytes = 2048

// setOutcome SETs an attempt's outcome at attr when it has one (the
// encoded value size-checked against the item limit) and its error, cut
// to maxAttemptErrorBytes, at errAttr and errAttr+"Kind".
func setOutcome(what, attr string, outcome any, errAttr, msg string, kind globalsearch.Kind) func(expression.UpdateBuilder) (expression.UpdateBuilder, error) {
	return func(up expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		if outcome != nil {
			av, err := attributevalue.MarshalWithOptions(outcome, jsonTags)
			if err != nil {
				return up, fmt.Errorf("encode %s: %w", what, err)
			}
			if n := valueSize(av); n > MaxItemBytes {
				return up, globalsearch.Errorf(globalsearch.KindInvalidInput, "%s is %d bytes, over the %d-byte item limit", what, n, MaxItemBytes)
			}
			up = up.Set(expression.Name(attr), expression.Value(av))
		}
		if msg != "" {
			up = up.Set(expression.Name(errAttr), expression.Value(truncate(msg, maxAttemptErrorBytes))).
				Set(expression.Name(errAttr+"Kind"), expression.Value(int(kind)))
		}
		return up, nil
	}
}

// tallies reads the run's tally items under prefix, in sort-key order
// (round, then index), leaving out any that is not this run's.
func (s *Runs) tallies(ctx context.Context, what, queryID, runID, prefix string) ([]runItem, error) {
	items, err := s.query(ctx, what, queryID, expression.Key(attrSK).BeginsWith(prefix))
	if err != nil {
		return nil, err
	}
	out := items[:0]
	for _, it := range items {
		if it.Round != nil && it.BatchIndex != nil && it.RunID == runID {
			out = append(out, it)
		}
	}
	return out, nil
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
