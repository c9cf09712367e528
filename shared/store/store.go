// Package store is the DynamoDB adapter of the search, one type per table
// over one shared Client: Index reads and replaces the namespaces of the
// index table (globalsearch.Index, IndexWriter), Runs keeps the runs table
// (globalsearch.Runs) and Cache the map-answer cache table
// (globalsearch.MapCache). Its in-process twins are store/memstore and
// store/dircache; they pass the conformance suites in store/storetest and
// store/cachetest.
//
// Index table: partition key `namespace` (S), sort key `sk` (S) with a typed
// prefix, `summary#<id>`, `claim#<id>` or `chunk#<id>`; the record's fields
// are plain attributes beside the keys. Because the sort key orders by id,
// each kind reads back in id byte order.
//
// Namespaces are versioned (docs/contract.md#namespace-versions): version v
// of namespace ns lives in partition `ns#v`, and the head item (partition
// `ns`, sort key `#head`) names the current `version`, the `pending`
// versions being written and the `retired` ones not yet deleted. A
// replacement (1) marks its new version pending (UpdateItem ADD, which also
// returns the current version), (2) writes every record into the new
// partition, (3) switches with one conditional UpdateItem (SET version, DELETE
// pending, ADD the old version to retired; only if the version is unchanged
// and the new one still pending), then (4) deletes every retired and pending
// version but the current one: a pending one is moved to retired first,
// atomically, so an ingest still writing it fails its switch, and a version
// leaves retired only once its records are gone, so nothing is ever lost
// track of. A namespace without a head (the layout before versions) reads
// from partition `ns` itself, and its first replacement retires it. Readers
// (Open) read the head once, every record of that version, and the head
// again (Snapshot.Intact): versions never repeat and are deleted only after
// the head moved past them, so an unchanged head proves the reads whole.
// Every index read is strongly consistent, so a reader never sees a head
// newer than the records it names.
//
// Runs table: partition key `queryId` (S), sort key `sk` (S): `request`,
// `plan`, `batch#<runId>#000042`, `answer#<runId>#000042`,
// `reduce-calls#<runId>`, `map-failure#<runId>#42`, `result`; a standing
// question's record is partition `#standing#<namespace>#<name>`, sort key
// `standing` (standing.go). Batch indexes
// are zero-padded to six digits so that sort-key order is index order.
// Batches, answers and reduce counts are keyed by the run (each plan of a
// query id is a new run, docs/contract.md#query-ids): a new plan is written
// beside the current one and switched to with one conditional write of the
// plan item, and the result item names the run that may write it and the
// execution that owns it. Every item carries `expiresAt` (epoch seconds),
// the table's TTL attribute, one value for all the items of a run; since
// DynamoDB deletes expired items lazily (up to days later), reads treat an
// item whose expiresAt has passed as absent. Runs reads are strongly
// consistent: reduce must see every answer the map tasks wrote.
//
// Payload bucket (Payloads, Runs.WithPayloads): the batch texts of a save,
// one object under runs/<queryId>/<runId>/, written before the batch items
// that name them (key, offset, length in the item's `text`), and a
// Distributed Map's items beside them (docs/contract.md#payloads-bucket).
package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// DynamoDBAPI is the part of *dynamodb.Client the store uses; tests wrap it
// to count requests or inject faults.
type DynamoDBAPI interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Client is what every table type shares: the DynamoDB client, the clock,
// the retry bounds and the TTLs. It reaches no table by itself; Index, Runs
// and Cache each add one table's name, so a function's wiring shows in its
// types which tables it may touch (docs/contract.md#tables).
type Client struct {
	client     DynamoDBAPI
	ttl        time.Duration
	cacheTTL   time.Duration
	now        func() time.Time
	backoff    Backoff
	queryLimit int32
	// shardBytes is the most record bytes one shard of a version holds
	// (WithShardBytes; 0: DefaultShardBytes).
	shardBytes int64
}

// Index is the index table (globalsearch.Index, IndexWriter,
// NamespaceLister). It is safe for concurrent use.
type Index struct {
	*Client
	table string
}

// Runs is the runs table (globalsearch.Runs and the failures a Distributed
// Map recorded). It is safe for concurrent use.
type Runs struct {
	*Client
	table string
	// payloads, when set, holds the batch texts (WithPayloads).
	payloads *Payloads
}

// Cache is the map-answer cache table (globalsearch.MapCache). It is safe
// for concurrent use.
type Cache struct {
	*Client
	table string
}

var (
	_ globalsearch.Index           = (*Index)(nil)
	_ globalsearch.IndexWriter     = (*Index)(nil)
	_ globalsearch.NamespaceLister = (*Index)(nil)
	_ globalsearch.Runs            = (*Runs)(nil)
	_ globalsearch.MapCache        = (*Cache)(nil)
)

// Backoff bounds the retries of unprocessed batch items and keys. Attempts
// counts calls that made no progress in a row: a call that gets some items
// through starts the count again, so a large batch under light throttling
// always finishes, and a batch that nothing gets through stops.
type Backoff struct {
	Base     time.Duration
	Max      time.Duration
	Attempts int
}

// DefaultBackoff is the backoff of a client built without WithBackoff: about
// six seconds of waiting at most before giving up.
var DefaultBackoff = Backoff{Base: 50 * time.Millisecond, Max: 2 * time.Second, Attempts: 8}

// Option configures a Client.
type Option func(*Client)

// WithTTL sets how long runs-table items live after their last write
// (default globalsearch.DefaultRunsTTL).
func WithTTL(d time.Duration) Option { return func(c *Client) { c.ttl = d } }

// WithCacheTTL sets how long a cached map answer lives after it is written
// (default globalsearch.DefaultMapCacheTTL).
func WithCacheTTL(d time.Duration) Option { return func(c *Client) { c.cacheTTL = d } }

// WithClock sets the clock that stamps and checks expiresAt.
func WithClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// WithBackoff sets the retry bounds for unprocessed batch items and keys.
func WithBackoff(b Backoff) Option { return func(c *Client) { c.backoff = b } }

// WithQueryLimit caps the items of one Query page (0: DynamoDB's 1 MB
// pages). Tests use it to force pagination on emulators that ignore the
// 1 MB page size.
func WithQueryLimit(n int32) Option { return func(c *Client) { c.queryLimit = n } }

// NewClient returns the shared part of the table types over api.
func NewClient(api DynamoDBAPI, opts ...Option) *Client {
	c := &Client{client: api, ttl: globalsearch.DefaultRunsTTL, cacheTTL: globalsearch.DefaultMapCacheTTL, now: time.Now, backoff: DefaultBackoff}
	for _, o := range opts {
		o(c)
	}
	if c.backoff.Attempts < 1 {
		c.backoff.Attempts = 1
	}
	return c
}

// named refuses a table without a name when it is built, so a deployment
// that lacks one fails at start-up, not at its first read.
func named(what, table string) error {
	if table == "" {
		return fmt.Errorf("the %s table has no name", what)
	}
	return nil
}

// NewIndex returns the index table called table.
func NewIndex(c *Client, table string) (*Index, error) {
	if err := named("index", table); err != nil {
		return nil, err
	}
	return &Index{Client: c, table: table}, nil
}

// NewRuns returns the runs table called table.
func NewRuns(c *Client, table string) (*Runs, error) {
	if err := named("runs", table); err != nil {
		return nil, err
	}
	return &Runs{Client: c, table: table}, nil
}

// NewCache returns the map-answer cache table called table.
func NewCache(c *Client, table string) (*Cache, error) {
	if err := named("map cache", table); err != nil {
		return nil, err
	}
	return &Cache{Client: c, table: table}, nil
}

// throttleCodes are the error codes DynamoDB answers when it refuses for
// load; the SDK has already retried them when they reach the store.
var throttleCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
}

// wrap adds context to an SDK error and classifies throttling as
// KindThrottled, so callers (the state machine's Retry) know a later
// attempt may succeed.
func wrap(err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	var apiErr smithy.APIError
	var quota ratelimit.QuotaExceededError
	if (errors.As(err, &apiErr) && throttleCodes[apiErr.ErrorCode()]) || errors.As(err, &quota) || transactionBusy(err) {
		return globalsearch.Errorf(globalsearch.KindThrottled, "%s: throttled by DynamoDB: %w", msg, err)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// transactionBusy reports a transaction cancelled for load or for another
// transaction on the same items (two claims of one id at once): a later
// attempt may succeed.
func transactionBusy(err error) bool {
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) {
		return false
	}
	for _, r := range cancelled.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "ThrottlingError", "TransactionConflict", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			return true
		}
	}
	return false
}

// sleep waits before retry number n (0-based) of calls that made no
// progress: full jitter over an exponential bound, as AWS recommends for
// unprocessed items.
func (s *Client) sleep(ctx context.Context, n int) error {
	limit := s.backoff.Base << min(n, 20)
	if limit > s.backoff.Max || limit <= 0 {
		limit = s.backoff.Max
	}
	if limit <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(rand.N(limit) + 1)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
