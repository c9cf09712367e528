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

// CreateRequest implements globalsearch.Requests with one transaction: the
// request, put only if no live request holds the id (an expired item that
// DynamoDB has not deleted yet counts as absent), and a fresh result item
// (status running, no run, owner) that replaces whatever result the id had,
// so a new request is never served an earlier request's answer
// (docs/contract.md#query-ids). Both carry one expiry. Two concurrent
// starts of one query id store one request.
func (s *Runs) CreateRequest(ctx context.Context, p globalsearch.Params, owner string) (globalsearch.Params, bool, error) {
	if err := requireQueryID(p.QueryID); err != nil {
		return globalsearch.Params{}, false, err
	}
	if owner == "" {
		owner = p.QueryID
	}
	what := "request of query " + p.QueryID
	exp := s.expiresAt()
	req, err := s.marshalRun(what, runItem{QueryID: p.QueryID, SK: skRequest, ExpiresAt: exp, Request: &p})
	if err != nil {
		return globalsearch.Params{}, false, err
	}
	res, err := s.marshalRun("result of query "+p.QueryID, runItem{QueryID: p.QueryID, SK: skResult, ExpiresAt: exp, Owner: owner, Status: string(globalsearch.StatusRunning)})
	if err != nil {
		return globalsearch.Params{}, false, err
	}
	expr, err := expression.NewBuilder().WithCondition(absentOrExpired(s.now().Unix())).Build()
	if err != nil {
		return globalsearch.Params{}, false, fmt.Errorf("build condition for %s: %w", what, err)
	}
	_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: &s.table, Item: req,
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		{Put: &types.Put{TableName: &s.table, Item: res}},
	}})
	if err == nil {
		return p, true, nil
	}
	old, refused := conditionFailed(err, 0)
	if !refused {
		return globalsearch.Params{}, false, wrap(err, "create %s", what)
	}
	var have runItem
	if len(old) > 0 {
		if err := attributevalue.UnmarshalMapWithOptions(old, &have, jsonTagsDec); err != nil {
			return globalsearch.Params{}, false, fmt.Errorf("decode existing %s: %w", what, err)
		}
	} else if have, err = s.get(ctx, what, p.QueryID, skRequest); err != nil {
		// The emulator did not return the item; read it.
		return globalsearch.Params{}, false, err
	}
	if have.Request == nil {
		return globalsearch.Params{}, false, fmt.Errorf("existing %s has no request attribute", what)
	}
	return *have.Request, false, nil
}

// absentOrExpired is the condition of an item that no live item holds.
func absentOrExpired(now int64) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrQueryID)).
		Or(expression.Name(TTLAttribute).LessThanEqual(expression.Value(now)))
}

// conditionFailed reports whether a transaction was cancelled because the
// condition of its item i failed, with that item as it was when the server
// sends it.
func conditionFailed(err error, i int) (item, bool) {
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) || len(cancelled.CancellationReasons) <= i {
		return nil, false
	}
	r := cancelled.CancellationReasons[i]
	if aws.ToString(r.Code) != "ConditionalCheckFailed" {
		return nil, false
	}
	return r.Item, true
}

// Request implements globalsearch.Requests.
func (s *Runs) Request(ctx context.Context, queryID string) (globalsearch.Params, error) {
	it, err := s.get(ctx, "request of query "+queryID, queryID, skRequest)
	if err != nil {
		return globalsearch.Params{}, err
	}
	if it.Request == nil {
		return globalsearch.Params{}, fmt.Errorf("request of query %s has no request attribute", queryID)
	}
	return *it.Request, nil
}
