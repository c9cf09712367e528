package store

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

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

// batchWrite applies reqs with BatchWriteItem, 25 at a time. When the
// retries run out it stops and says how many items were not written: the
// unprocessed ones and those of groups not yet sent.
func (s *Store) batchWrite(ctx context.Context, table string, reqs []types.WriteRequest) error {
	for start := 0; start < len(reqs); start += maxBatchWrite {
		end := min(start+maxBatchWrite, len(reqs))
		err := untilProcessed(s, ctx, reqs[start:end], func(pending []types.WriteRequest) ([]types.WriteRequest, error) {
			out, err := s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{table: pending},
			})
			if err != nil {
				return nil, wrap(err, "batch write to %s (%d of %d items not written)", table, len(reqs)-start, len(reqs))
			}
			return out.UnprocessedItems[table], nil
		}, func(left, stalled int) error {
			return globalsearch.Errorf(globalsearch.KindThrottled,
				"batch write to %s: %d of %d items not written (%d still unprocessed after %d attempts without progress)",
				table, left+len(reqs)-end, len(reqs), left, stalled)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// batchGetConcurrency bounds the BatchGetItems in flight: prepare's chunk
// reads are on its critical path, and each waits a network round trip,
// while more than a few at once would only meet the table's throughput
// limit sooner.
const batchGetConcurrency = 8

// batchGet reads keys with BatchGetItem, 100 at a time, up to
// batchGetConcurrency groups at once. Keys that do not exist are simply
// absent from the answer. The first error stops the groups not yet sent.
func (s *Store) batchGet(ctx context.Context, table string, keys []item) ([]item, error) {
	groups := make([][]item, (len(keys)+maxBatchGet-1)/maxBatchGet)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(batchGetConcurrency)
	for i := range groups {
		start := i * maxBatchGet
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return untilProcessed(s, gctx, keys[start:min(start+maxBatchGet, len(keys))], func(pending []item) ([]item, error) {
				out, err := s.client.BatchGetItem(gctx, &dynamodb.BatchGetItemInput{
					RequestItems: map[string]types.KeysAndAttributes{table: {Keys: pending}},
				})
				if err != nil {
					return nil, wrap(err, "batch get from %s", table)
				}
				groups[i] = append(groups[i], out.Responses[table]...)
				return out.UnprocessedKeys[table].Keys, nil
			}, func(left, stalled int) error {
				return globalsearch.Errorf(globalsearch.KindThrottled,
					"batch get from %s: %d keys still unprocessed after %d attempts without progress", table, left, stalled)
			})
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(groups...), nil
}

// untilProcessed sends pending until DynamoDB has processed all of it,
// sending again what it returns unprocessed, with backoff. Only attempts
// that make no progress count against the limit, so a large batch under
// light throttling is not cut short; when they run out, gaveUp says why.
func untilProcessed[T any](s *Store, ctx context.Context, pending []T, send func([]T) ([]T, error), gaveUp func(left, stalled int) error) error {
	stalled := 0
	for len(pending) > 0 {
		left, err := send(pending)
		if err != nil {
			return err
		}
		if len(left) < len(pending) {
			stalled = 0
		} else {
			stalled++
		}
		pending = left
		if len(pending) == 0 {
			return nil
		}
		if stalled >= s.backoff.Attempts {
			return gaveUp(len(pending), stalled)
		}
		if err := s.sleep(ctx, stalled); err != nil {
			return err
		}
	}
	return nil
}
