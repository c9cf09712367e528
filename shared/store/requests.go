package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// CreateRequest implements globalsearch.Requests with a conditional put, so
// two concurrent starts of one query id store one request. An expired item
// that DynamoDB has not deleted yet counts as absent.
func (s *Store) CreateRequest(ctx context.Context, p globalsearch.Params) (globalsearch.Params, bool, error) {
	if err := requireQueryID(p.QueryID); err != nil {
		return globalsearch.Params{}, false, err
	}
	what := "request of query " + p.QueryID
	m, err := s.marshalRun(what, runItem{QueryID: p.QueryID, SK: skRequest, ExpiresAt: s.expiresAt(), Request: &p})
	if err != nil {
		return globalsearch.Params{}, false, err
	}
	cond := expression.AttributeNotExists(expression.Name(attrQueryID)).
		Or(expression.Name(TTLAttribute).LessThanEqual(expression.Value(s.now().Unix())))
	exists, err := s.putIf(ctx, "create", what, m, cond, true)
	if err != nil {
		return globalsearch.Params{}, false, err
	}
	if exists == nil {
		return p, true, nil
	}
	var have runItem
	if len(exists.Item) > 0 {
		if err := attributevalue.UnmarshalMapWithOptions(exists.Item, &have, jsonTagsDec); err != nil {
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

// Request implements globalsearch.Requests.
func (s *Store) Request(ctx context.Context, queryID string) (globalsearch.Params, error) {
	it, err := s.get(ctx, "request of query "+queryID, queryID, skRequest)
	if err != nil {
		return globalsearch.Params{}, err
	}
	if it.Request == nil {
		return globalsearch.Params{}, fmt.Errorf("request of query %s has no request attribute", queryID)
	}
	return *it.Request, nil
}
