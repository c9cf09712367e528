package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// AddReduceCall implements globalsearch.ReduceCalls with an atomic ADD, so
// concurrent or retried invocations never lose a count; the count expires
// with its run (runExpiry).
func (s *Runs) AddReduceCall(ctx context.Context, queryID, runID string) (int, error) {
	if err := requireQueryID(queryID); err != nil {
		return 0, err
	}
	what := "reduce calls of query " + queryID
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, reduceSK(runID)}, jsonTags)
	if err != nil {
		return 0, fmt.Errorf("encode key of %s: %w", what, err)
	}
	exp, err := s.runExpiry(ctx, queryID, runID)
	if err != nil {
		return 0, err
	}
	expr, err := expression.NewBuilder().WithUpdate(
		expression.Add(expression.Name("reduceCalls"), expression.Value(1)).
			Set(expression.Name(TTLAttribute), expression.Value(exp))).Build()
	if err != nil {
		return 0, fmt.Errorf("build update of %s: %w", what, err)
	}
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key,
		UpdateExpression:          expr.Update(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, wrap(err, "count %s", what)
	}
	var it runItem
	if err := attributevalue.UnmarshalMapWithOptions(out.Attributes, &it, jsonTagsDec); err != nil || it.ReduceCalls == nil {
		return 0, fmt.Errorf("decode %s: %v", what, err)
	}
	return *it.ReduceCalls, nil
}

// ReduceCalls implements globalsearch.ReduceCalls.
func (s *Runs) ReduceCalls(ctx context.Context, queryID, runID string) (int, error) {
	it, err := s.get(ctx, "reduce calls of query "+queryID, queryID, reduceSK(runID))
	switch {
	case errors.Is(err, globalsearch.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	case it.ReduceCalls == nil:
		return 0, nil
	}
	return *it.ReduceCalls, nil
}
