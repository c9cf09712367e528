package store

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
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

// queryAll builds b (a key condition, and a projection when set) and reads
// every page of the Query it makes on table.
func (s *Client) queryAll(ctx context.Context, table string, b expression.Builder, consistent bool) ([]item, error) {
	var out []item
	err := s.queryPages(ctx, table, b, consistent, func(page []item) error {
		out = append(out, page...)
		return nil
	})
	return out, err
}

// queryPages is queryAll handing each page to each as it arrives, and
// stopping at the first error each returns: the one way the store queries.
func (s *Client) queryPages(ctx context.Context, table string, b expression.Builder, consistent bool, each func(page []item) error) error {
	expr, err := b.Build()
	if err != nil {
		return fmt.Errorf("build query: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    expr.KeyCondition(),
		ProjectionExpression:      expr.Projection(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if s.queryLimit > 0 {
		in.Limit = aws.Int32(s.queryLimit)
	}
	p := dynamodb.NewQueryPaginator(s.client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		if err := each(page.Items); err != nil {
			return err
		}
	}
	return nil
}

// countAll counts the items of the Query b describes (a key condition and
// a filter) on table, every page, with Select COUNT: the server sends no
// item back, only how many matched. It reads (and is charged for) the
// same items as queryAll would.
func (s *Client) countAll(ctx context.Context, table string, b expression.Builder, consistent bool) (int, error) {
	expr, err := b.Build()
	if err != nil {
		return 0, fmt.Errorf("build count: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    expr.KeyCondition(),
		FilterExpression:          expr.Filter(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		Select:                    types.SelectCount,
	}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if s.queryLimit > 0 {
		in.Limit = aws.Int32(s.queryLimit)
	}
	n := 0
	p := dynamodb.NewQueryPaginator(s.client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return 0, err
		}
		n += int(page.Count)
	}
	return n, nil
}

// batchWriteConcurrency bounds the BatchWriteItems in flight: saving a
// plan of a large namespace is a thousand items or more, on prepare's
// critical path, and each call waits a network round trip; more than a few
// at once would only meet the table's throughput limit sooner (and come
// back as unprocessed items, retried below).
const batchWriteConcurrency = 8

// batchWrite applies reqs with BatchWriteItem, 25 at a time, up to
// batchWriteConcurrency groups at once. The first error stops the groups
// not yet sent and the retries of the others; calls already in flight are
// let finish (only the caller's ctx cancels them), so that the error can
// say how many items were not written: reqs less those DynamoDB answered
// as processed.
func (s *Client) batchWrite(ctx context.Context, table string, reqs []types.WriteRequest) error {
	var written atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(batchWriteConcurrency)
	for start := 0; start < len(reqs); start += maxBatchWrite {
		group := reqs[start:min(start+maxBatchWrite, len(reqs))]
		g.Go(func() error {
			return untilProcessed(s, gctx, group, func(pending []types.WriteRequest) ([]types.WriteRequest, error) {
				if err := gctx.Err(); err != nil {
					return nil, err
				}
				out, err := s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
					RequestItems: map[string][]types.WriteRequest{table: pending},
				})
				if err != nil {
					return nil, wrap(err, "BatchWriteItem")
				}
				left := out.UnprocessedItems[table]
				written.Add(int64(len(pending) - len(left)))
				return left, nil
			}, func(left, stalled int) error {
				return globalsearch.Errorf(globalsearch.KindThrottled,
					"%d still unprocessed after %d attempts without progress", left, stalled)
			})
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("batch write to %s: %d of %d items not written: %w", table, len(reqs)-int(written.Load()), len(reqs), err)
	}
	return nil
}

// batchGetConcurrency bounds the BatchGetItems in flight: prepare's chunk
// reads are on its critical path, and each waits a network round trip,
// while more than a few at once would only meet the table's throughput
// limit sooner.
const batchGetConcurrency = 8

// batchGet reads keys with BatchGetItem, 100 at a time, up to
// batchGetConcurrency groups at once, strongly consistent or not. Keys that
// do not exist are simply absent from the answer. The first error stops the
// groups not yet sent.
func (s *Client) batchGet(ctx context.Context, table string, keys []item, consistent bool) ([]item, error) {
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
					RequestItems: map[string]types.KeysAndAttributes{table: {Keys: pending, ConsistentRead: aws.Bool(consistent)}},
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
// A call refused whole for load (KindThrottled, once the SDK's own retries
// are spent) is an attempt that processed nothing: DynamoDB refuses a
// batch whole when none of its items fits the partition's rate, which
// several writers of one partition meet in turn, so it is waited out like
// unprocessed items, not given up on (docs/contract.md#limits-model).
func untilProcessed[T any](s *Client, ctx context.Context, pending []T, send func([]T) ([]T, error), gaveUp func(left, stalled int) error) error {
	stalled := 0
	var throttled error
	for len(pending) > 0 {
		left, err := send(pending)
		switch {
		case err != nil && globalsearch.KindOf(err) == globalsearch.KindThrottled && ctx.Err() == nil:
			left, throttled = pending, err
		case err != nil:
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
			if throttled != nil {
				return fmt.Errorf("%w: %w", gaveUp(len(pending), stalled), throttled)
			}
			return gaveUp(len(pending), stalled)
		}
		if err := s.sleep(ctx, stalled); err != nil {
			return err
		}
	}
	return nil
}
