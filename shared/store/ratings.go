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

var _ globalsearch.Selections = (*Runs)(nil)

// SaveRatingBatches implements globalsearch.Selections: one item per
// batch, keyed by run, round and index, with the run's expiry (runExpiry).
// Every item is encoded and size-checked before anything is written.
func (s *Runs) SaveRatingBatches(ctx context.Context, queryID, runID string, batches []globalsearch.RatingBatch) error {
	puts := make([]types.WriteRequest, 0, len(batches))
	items := make([]runItem, len(batches))
	for i := range batches {
		b := batches[i]
		if err := globalsearch.CheckRatingKey(queryID, b.Round, b.Index); err != nil {
			return err
		}
		items[i] = runItem{QueryID: queryID, SK: ratingBatchSK(runID, b.Round, b.Index), RunID: runID, RatingBatch: &b}
		if _, err := s.marshalRun(ratingWhat("rating batch", queryID, b.Round, b.Index), items[i]); err != nil {
			return err
		}
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return err
	}
	for _, it := range items {
		it.ExpiresAt = exp
		m, err := s.marshalRun(ratingWhat("rating batch", queryID, it.RatingBatch.Round, it.RatingBatch.Index), it)
		if err != nil {
			return err
		}
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	}
	if err := s.batchWrite(ctx, s.table, puts); err != nil {
		return fmt.Errorf("save rating batches of query %s: %w", queryID, err)
	}
	return nil
}

// RatingBatch implements globalsearch.Selections: the plan item names the
// current run (a projected GetItem), whose rating batch is one more.
func (s *Runs) RatingBatch(ctx context.Context, queryID, runID string, round, index int) (globalsearch.RatingBatch, error) {
	what := ratingWhat("rating batch", queryID, round, index)
	if err := globalsearch.CheckRatingKey(queryID, round, index); err != nil {
		return globalsearch.RatingBatch{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	plan, err := s.get(ctx, "plan of query "+queryID, queryID, skPlan, attrQueryID, attrSK, TTLAttribute, "plan.runId")
	if err != nil {
		return globalsearch.RatingBatch{}, err
	}
	if plan.Plan == nil || plan.Plan.RunID != runID {
		return globalsearch.RatingBatch{}, fmt.Errorf("%s: run %s is not the current run: %w", what, runID, globalsearch.ErrNotFound)
	}
	it, err := s.get(ctx, what, queryID, ratingBatchSK(runID, round, index))
	if err != nil {
		return globalsearch.RatingBatch{}, err
	}
	if it.RatingBatch == nil || it.RunID != runID {
		return globalsearch.RatingBatch{}, fmt.Errorf("%s has no rating batch of run %s", what, runID)
	}
	return *it.RatingBatch, nil
}

// AddRating implements globalsearch.Selections with one UpdateItem: the
// counters are ADDed, so concurrent or retried attempts never lose a call,
// and the scores or error are SET; the item expires with its run.
func (s *Runs) AddRating(ctx context.Context, queryID, runID string, r globalsearch.Rating) error {
	if err := globalsearch.CheckRatingKey(queryID, r.Round, r.BatchIndex); err != nil {
		return err
	}
	what := ratingWhat("rating", queryID, r.Round, r.BatchIndex)
	up := expression.Add(expression.Name("calls"), expression.Value(r.Calls)).
		Add(expression.Name("inputTokens"), expression.Value(r.InputTokens)).
		Add(expression.Name("outputTokens"), expression.Value(r.OutputTokens)).
		Set(expression.Name("round"), expression.Value(r.Round)).
		Set(expression.Name("batchIndex"), expression.Value(r.BatchIndex)).
		Set(expression.Name(attrRunID), expression.Value(runID))
	if r.Rated {
		scores := globalsearch.Rating{Rated: true, Scores: r.Scores, UnknownIDs: r.UnknownIDs}
		av, err := attributevalue.MarshalWithOptions(scores, jsonTags)
		if err != nil {
			return fmt.Errorf("encode %s: %w", what, err)
		}
		if n := valueSize(av); n > MaxItemBytes {
			return globalsearch.Errorf(globalsearch.KindInvalidInput, "%s is %d bytes, over the %d-byte item limit", what, n, MaxItemBytes)
		}
		up = up.Set(expression.Name("rating"), expression.Value(av))
	}
	if r.Error != "" {
		up = up.Set(expression.Name("ratingError"), expression.Value(truncate(r.Error, maxRatingErrorBytes))).
			Set(expression.Name("ratingErrorKind"), expression.Value(int(r.ErrorKind)))
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithUpdate(up.Set(expression.Name(TTLAttribute), expression.Value(exp))).Build()
	if err != nil {
		return fmt.Errorf("build update of %s: %w", what, err)
	}
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, ratingSK(runID, r.Round, r.BatchIndex)}, jsonTags)
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

// maxRatingErrorBytes bounds the error a rating item keeps: it only says
// why the batch was not rated.
const maxRatingErrorBytes = 2048

// Ratings implements globalsearch.Selections: one paginated Query of the
// run's rating items, in sort-key order (round, then batch).
func (s *Runs) Ratings(ctx context.Context, queryID, runID string) ([]globalsearch.Rating, error) {
	items, err := s.query(ctx, "ratings of query "+queryID, queryID, expression.Key(attrSK).BeginsWith(ratingPrefix(runID)))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.Rating, 0, len(items))
	for _, it := range items {
		if it.Round == nil || it.BatchIndex == nil || it.RunID != runID {
			continue // not a rating of this run: a corrupt item
		}
		r := globalsearch.Rating{Round: *it.Round, BatchIndex: *it.BatchIndex, Calls: it.Calls,
			InputTokens: it.InTokens, OutputTokens: it.OutTokens, Error: it.RatingError, ErrorKind: globalsearch.Kind(it.RatingErrorKind)}
		if it.Rating != nil && it.Rating.Rated {
			r.Rated, r.Scores, r.UnknownIDs = true, it.Rating.Scores, it.Rating.UnknownIDs
		}
		out = append(out, r)
	}
	return out, nil
}

func ratingWhat(kind, queryID string, round, index int) string {
	return fmt.Sprintf("%s %d of round %d of query %s", kind, index, round, queryID)
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
