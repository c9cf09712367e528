package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// DynamoDB's per-call limits.
const (
	maxBatchWrite = 25
	maxBatchGet   = 100
)

type item = map[string]types.AttributeValue

// queryAll reads every page of a query.
func (s *Store) queryAll(ctx context.Context, in *dynamodb.QueryInput) ([]item, error) {
	if s.queryLimit > 0 {
		in.Limit = aws.Int32(s.queryLimit)
	}
	var out []item
	p := dynamodb.NewQueryPaginator(s.client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
	}
	return out, nil
}

// writeAll applies reqs in groups of 25, retrying unprocessed items with
// backoff. When the retries run out it stops and says how many items were
// not written: the unprocessed ones and those of groups not yet sent.
func (s *Store) writeAll(ctx context.Context, table string, reqs []types.WriteRequest) error {
	for start := 0; start < len(reqs); start += maxBatchWrite {
		pending := reqs[start:min(start+maxBatchWrite, len(reqs))]
		stalled := 0
		for len(pending) > 0 {
			out, err := s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{table: pending},
			})
			if err != nil {
				return wrap(err, "batch write to %s (%d of %d items not written)", table, len(reqs)-start, len(reqs))
			}
			left := out.UnprocessedItems[table]
			if len(left) < len(pending) {
				stalled = 0
			} else {
				stalled++
			}
			pending = left
			if len(pending) == 0 {
				break
			}
			if stalled >= s.backoff.Attempts {
				notWritten := len(pending) + len(reqs) - min(start+maxBatchWrite, len(reqs))
				return globalsearch.Errorf(globalsearch.KindThrottled,
					"batch write to %s: %d of %d items not written (%d still unprocessed after %d attempts without progress)",
					table, notWritten, len(reqs), len(pending), stalled)
			}
			if err := s.sleep(ctx, stalled); err != nil {
				return err
			}
		}
	}
	return nil
}

// getAll reads keys in groups of 100, retrying unprocessed keys with
// backoff. Keys that do not exist are simply absent from the answer.
func (s *Store) getAll(ctx context.Context, table string, keys []item) ([]item, error) {
	var found []item
	for start := 0; start < len(keys); start += maxBatchGet {
		pending := keys[start:min(start+maxBatchGet, len(keys))]
		stalled := 0
		for len(pending) > 0 {
			out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems: map[string]types.KeysAndAttributes{table: {Keys: pending}},
			})
			if err != nil {
				return nil, wrap(err, "batch get from %s", table)
			}
			got := out.Responses[table]
			found = append(found, got...)
			left := out.UnprocessedKeys[table].Keys
			if len(left) < len(pending) {
				stalled = 0
			} else {
				stalled++
			}
			pending = left
			if len(pending) == 0 {
				break
			}
			if stalled >= s.backoff.Attempts {
				return nil, globalsearch.Errorf(globalsearch.KindThrottled,
					"batch get from %s: %d keys still unprocessed after %d attempts without progress", table, len(pending), stalled)
			}
			if err := s.sleep(ctx, stalled); err != nil {
				return nil, err
			}
		}
	}
	return found, nil
}
