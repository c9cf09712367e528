// The runs table: one partition per query, one item per request, plan,
// batch, map answer, reduce-call counter and result (keys.go). This file
// holds the item type and the reads and writes they all share.

package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// runItem is every kind of runs-table item; exactly one payload field is
// set. The payloads are the domain types under their JSON names, so an item
// reads in the console like the API's JSON.
type runItem struct {
	QueryID   string `json:"queryId"`
	SK        string `json:"sk"`
	ExpiresAt int64  `json:"expiresAt"`
	// RunID is the run an answer, reduce count or result belongs to
	// (docs/contract.md#query-ids); on the result item it says which run may write it.
	RunID string `json:"runId,omitempty"`
	// Owner, on the result item, is the execution that may record the
	// run's failure itself (RecordFailure's condition): the one that
	// claimed the query id, or that started its current run
	// (docs/contract.md#query-ids).
	Owner   string               `json:"owner,omitempty"`
	Request *globalsearch.Params `json:"request,omitempty"`
	Plan    *planHeader          `json:"plan,omitempty"`
	Batch   *globalsearch.Batch  `json:"batch,omitempty"`
	// Text, beside a batch saved with a payload bucket, is where its
	// content is; the batch's own content is then empty.
	Text   *textRef                `json:"text,omitempty"`
	Answer *globalsearch.MapAnswer `json:"answer,omitempty"`
	// A result is stored as gzipped JSON: its diagnostics grow with the
	// batch count (thousands of entries for the largest plans the state
	// machine accepts), which as plain attributes would pass 400 KB.
	// Status stays readable beside it.
	Status string `json:"status,omitempty"`
	Result []byte `json:"resultGzip,omitempty"`
	// A failure no function saved (a crashed or timed-out task) is written
	// by the state machine itself (RecordFailure in the ASL), which can
	// neither gzip nor read a clock: a result item with status "failed",
	// no resultGzip, the caught error's name, the caught error as JSON and
	// the state's entry time (ISO 8601).
	Error    string `json:"error,omitempty"`
	Cause    string `json:"cause,omitempty"`
	FailedAt string `json:"failedAt,omitempty"`
	// FailedRunID is the run such a failure ended (RecordFailure sets it
	// as it removes runId), whose spend a stopped execution's record
	// completes it with (stopped.go).
	FailedRunID string `json:"failedRunId,omitempty"`
	// BatchIndex is the batch of a recorded map failure (MapFailures).
	BatchIndex *int `json:"batchIndex,omitempty"`
	// ReduceCalls is the reduce-calls counter; a pointer so that the reset
	// to 0 is written.
	ReduceCalls *int `json:"reduceCalls,omitempty"`
	// RatingBatch is a rating batch of a dynamic selection. A rating item
	// is the attempts at one: Round and BatchIndex, the counters each
	// attempt adds to, Rating (the scores) once one succeeded and the last
	// failed attempt's RatingError (ratings.go).
	RatingBatch *globalsearch.RatingBatch `json:"ratingBatch,omitempty"`
	Rating      *globalsearch.Rating      `json:"rating,omitempty"`
	Round       *int                      `json:"round,omitempty"`
	Calls       int                       `json:"calls,omitempty"`
	InTokens    int                       `json:"inputTokens,omitempty"`
	OutTokens   int                       `json:"outputTokens,omitempty"`
	RatingError string                    `json:"ratingError,omitempty"`
	// RatingErrorKind is RatingError's globalsearch.Kind.
	RatingErrorKind int `json:"ratingErrorKind,omitempty"`
	// ReduceGroup and the group answer fields are a tree reduce's
	// (rounds.go): a group, and the attempts at one, which add to Calls
	// and the token counters as a rating item's do.
	ReduceGroup    *globalsearch.ReduceGroup `json:"reduceGroup,omitempty"`
	GroupAnswer    *globalsearch.GroupAnswer `json:"groupAnswer,omitempty"`
	GroupError     string                    `json:"groupError,omitempty"`
	GroupErrorKind int                       `json:"groupErrorKind,omitempty"`
	// CacheRead and CacheWrite are a map attempts tally's prompt-cache
	// tokens (mapattempts.go), counters as the others are.
	CacheRead  int `json:"cacheReadInputTokens,omitempty"`
	CacheWrite int `json:"cacheWriteInputTokens,omitempty"`
}

type runKey struct {
	QueryID string `json:"queryId"`
	SK      string `json:"sk"`
}

func jsonTags(o *attributevalue.EncoderOptions)    { o.TagKey = "json" }
func jsonTagsDec(o *attributevalue.DecoderOptions) { o.TagKey = "json" }

func (s *Runs) expiresAt() int64 { return s.now().Add(s.ttl).Unix() }

// runExpiry is the expiry of run runID of a query: its plan item's, which
// SavePlan gave every item of the plan, so that what a run writes later
// (answers, the reduce count) expires with it (docs/contract.md#tables).
// A run that is not the query's current one (replaced, or never planned)
// has no plan to follow: its late items get a lifetime of their own, as
// they are keyed by a run nothing reads any more.
func (s *Runs) runExpiry(ctx context.Context, queryID, runID string) (int64, error) {
	it, err := s.get(ctx, "plan of query "+queryID, queryID, skPlan, attrQueryID, attrSK, TTLAttribute, "plan.runId")
	switch {
	case errors.Is(err, globalsearch.ErrNotFound):
		return s.expiresAt(), nil
	case err != nil:
		return 0, err
	case it.Plan == nil || it.Plan.RunID != runID || it.ExpiresAt == 0:
		return s.expiresAt(), nil
	}
	return it.ExpiresAt, nil
}

// live is the condition of an item that has not expired (alive's, on the
// server).
func (s *Runs) live() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(TTLAttribute)).
		Or(expression.Name(TTLAttribute).GreaterThan(expression.Value(s.now().Unix())))
}

// notCancelled is the condition of a result item a run may still write:
// a cancelled result is final (docs/contract.md#cancel).
func notCancelled() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrStatus)).
		Or(expression.Name(attrStatus).NotEqual(expression.Value(string(globalsearch.StatusCancelled))))
}

func projection(paths []string) expression.ProjectionBuilder {
	names := make([]expression.NameBuilder, len(paths))
	for i, n := range paths {
		names[i] = expression.Name(n)
	}
	return expression.NamesList(names[0], names[1:]...)
}

// alive reports whether an item has not expired; DynamoDB may still return
// an expired item until its TTL sweep gets to it.
func (s *Runs) alive(it runItem) bool {
	return it.ExpiresAt == 0 || it.ExpiresAt > s.now().Unix()
}

func (s *Runs) marshalRun(what string, it runItem) (item, error) {
	m, err := attributevalue.MarshalMapWithOptions(it, jsonTags)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := checkSize(what, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (s *Runs) put(ctx context.Context, what string, it runItem) error {
	m, err := s.marshalRun(what, it)
	if err != nil {
		return err
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: m}); err != nil {
		return wrap(err, "save %s", what)
	}
	return nil
}

// updateIf applies the update (and condition) b holds to one item. A
// failed condition is not an error: it comes back as true.
func (s *Runs) updateIf(ctx context.Context, verb, what, queryID, sk string, b expression.Builder) (bool, error) {
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, sk}, jsonTags)
	if err != nil {
		return false, fmt.Errorf("encode key of %s: %w", what, err)
	}
	expr, err := b.Build()
	if err != nil {
		return false, fmt.Errorf("build update of %s: %w", what, err)
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: key,
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return true, nil
	}
	if err != nil {
		return false, wrap(err, "%s %s", verb, what)
	}
	return false, nil
}

// get reads one item; a missing or expired item is ErrNotFound. With
// project, only those attribute paths are read (expiresAt among them, or
// the item reads as never expiring).
func (s *Runs) get(ctx context.Context, what, queryID, sk string, project ...string) (runItem, error) {
	if queryID == "" {
		return runItem{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, sk}, jsonTags)
	if err != nil {
		return runItem{}, fmt.Errorf("encode key of %s: %w", what, err)
	}
	in := &dynamodb.GetItemInput{TableName: &s.table, Key: key, ConsistentRead: aws.Bool(true)}
	if len(project) > 0 {
		expr, err := expression.NewBuilder().WithProjection(projection(project)).Build()
		if err != nil {
			return runItem{}, fmt.Errorf("build projection of %s: %w", what, err)
		}
		in.ProjectionExpression, in.ExpressionAttributeNames = expr.Projection(), expr.Names()
	}
	out, err := s.client.GetItem(ctx, in)
	if err != nil {
		return runItem{}, wrap(err, "read %s", what)
	}
	var it runItem
	if len(out.Item) > 0 {
		if err := attributevalue.UnmarshalMapWithOptions(out.Item, &it, jsonTagsDec); err != nil {
			return runItem{}, fmt.Errorf("decode %s: %w", what, err)
		}
	}
	if len(out.Item) == 0 || !s.alive(it) {
		return runItem{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	return it, nil
}

// query reads every live item of a run whose sort key the condition
// selects, in sort-key order; with project, only those attribute paths.
func (s *Runs) query(ctx context.Context, what, queryID string, sk expression.KeyConditionBuilder, project ...string) ([]runItem, error) {
	if queryID == "" {
		return nil, nil
	}
	b := expression.NewBuilder().WithKeyCondition(
		expression.Key(attrQueryID).Equal(expression.Value(queryID)).And(sk))
	if len(project) > 0 {
		b = b.WithProjection(projection(project))
	}
	items, err := s.queryAll(ctx, s.table, b, true)
	if err != nil {
		return nil, wrap(err, "read %s", what)
	}
	var all []runItem
	if err := attributevalue.UnmarshalListOfMapsWithOptions(items, &all, jsonTagsDec); err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	live := all[:0]
	for _, it := range all {
		if s.alive(it) {
			live = append(live, it)
		}
	}
	return live, nil
}

func requireQueryID(id string) error {
	if id == "" {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "queryId must not be empty")
	}
	return nil
}
