// Package limits is a test double of the AWS throughput limits the
// emulators do not have (docs/contract.md#limits-model): it sits between
// the real SDK clients and an emulator, as the clients' HTTP client, reads
// every wire request and refuses what DynamoDB or S3 would refuse at their
// per-partition and per-prefix rates, with the errors those services send,
// so that the SDK's retryer and the store's error classification treat
// them as real. It is imported by tests only.
//
// Rates are token buckets read on the time package's clock: run the
// clients under testing/synctest and the clock is simulated, so a test
// measures in simulated seconds and never sleeps (the SDK's retry backoff
// and the store's sleeps run on the same clock). Every request also takes
// Limits.Latency of that clock.
package limits

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Limits are the rates the double enforces, per second (0: no limit), and
// the time each request takes.
type Limits struct {
	// WriteUnits and ReadUnits are the capacity units one DynamoDB
	// partition key serves a second.
	WriteUnits, ReadUnits float64
	// S3Puts and S3Gets are the requests one S3 prefix serves a second:
	// PUT, COPY, POST and DELETE count as puts, GET and HEAD as gets.
	S3Puts, S3Gets float64
	// Burst is how much unused capacity a bucket keeps, in seconds of its
	// rate (at least one request's worth is always admitted to an idle
	// bucket).
	Burst time.Duration
	// Latency is the service time of every request.
	Latency time.Duration
	// S3Bandwidth is the bytes a second one S3 request moves (its body
	// sent or its answer received) on top of Latency: S3 serves one
	// connection at tens of MB a second, so a large object takes time of
	// its own. 0: no limit.
	S3Bandwidth float64
}

// AWS are the published limits: 1,000 write and 3,000 read units a second
// per partition, 3,500 PUT and 5,500 GET requests a second per prefix, one
// second of burst, and 10 ms a request; and 90 MB a second per S3
// connection, what one connection of a Lambda function in the bucket's
// region typically reaches (S3 publishes no figure per connection).
var AWS = Limits{WriteUnits: 1000, ReadUnits: 3000, S3Puts: 3500, S3Gets: 5500, Burst: time.Second, Latency: 10 * time.Millisecond,
	S3Bandwidth: 90e6}

// bucket is a token bucket; tokens may go below zero when a read is
// charged after it is served (DynamoDB charges a read by what it
// returned), and nothing is admitted until they are back above zero.
type bucket struct {
	rate, capacity, tokens float64
	at                     time.Time
}

func newBucket(rate float64, burst time.Duration) *bucket {
	c := rate * burst.Seconds()
	return &bucket{rate: rate, capacity: c, tokens: c, at: time.Now()}
}

func (b *bucket) refill(now time.Time) {
	b.tokens = min(b.capacity, b.tokens+now.Sub(b.at).Seconds()*b.rate)
	b.at = now
}

// Stats count what the double saw.
type Stats struct {
	// Requests counts every request, Throttled those refused whole for
	// rate, Unprocessed the batch items and keys returned unprocessed.
	Requests, Throttled, Unprocessed int
	// WriteUnits and ReadUnits are the DynamoDB units charged, by table.
	WriteUnits, ReadUnits map[string]float64
	// Refused counts requests refused for size (an item over 400 KB).
	Refused int
	// Stale counts the eventually consistent answers served short (Stale).
	Stale int
}

// Double is an aws.HTTPClient that enforces Limits in front of next.
// It is safe for concurrent use.
type Double struct {
	next   http.Handler
	limits Limits

	mu      sync.Mutex
	buckets map[string]*bucket
	keys    map[string][2]string // table -> partition and sort key attributes
	stats   Stats
	stale   int // eventually consistent answers still to serve short
}

// Stale makes the next n eventually consistent reads that return an item
// (Query pages, BatchGetItem answers) come back without their first one,
// as from a replica that has not yet seen the latest writes: DynamoDB
// serves such reads from any replica, and one may lag the leader.
func (d *Double) Stale(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stale = n
}

// takeStale reports whether an eventually consistent answer is to be
// served short, and counts it.
func (d *Double) takeStale(consistent bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if consistent || d.stale <= 0 {
		return false
	}
	d.stale--
	d.stats.Stale++
	return true
}

// New returns a double that serves through next (an emulator's handler,
// called in process: no socket, so simulated time is not stopped by
// network waits).
func New(next http.Handler, limits Limits) *Double {
	return &Double{next: next, limits: limits, buckets: map[string]*bucket{}, keys: map[string][2]string{},
		stats: Stats{WriteUnits: map[string]float64{}, ReadUnits: map[string]float64{}}}
}

// DynamoDB returns an SDK client whose requests go through d, with the
// SDK's default retryer (as the functions' clients have) unless optFns
// set another.
func (d *Double) DynamoDB(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://dynamodb.limits.test"),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), HTTPClient: d,
	}, optFns...)
}

// S3 returns an S3 client whose requests go through d, path-style, with
// checksums only where S3 requires them (the double reads plain bodies).
func (d *Double) S3(optFns ...func(*s3.Options)) *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://s3.limits.test"), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), HTTPClient: d,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}, optFns...)
}

// Stats returns a copy of the counts so far.
func (d *Double) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	s.WriteUnits, s.ReadUnits = map[string]float64{}, map[string]float64{}
	for k, v := range d.stats.WriteUnits {
		s.WriteUnits[k] = v
	}
	for k, v := range d.stats.ReadUnits {
		s.ReadUnits[k] = v
	}
	return s
}

// Do implements aws.HTTPClient.
func (d *Double) Do(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil { // a GET has none
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		_ = r.Body.Close()
	}
	time.Sleep(d.limits.Latency)
	d.mu.Lock()
	d.stats.Requests++
	d.mu.Unlock()
	var rec *httptest.ResponseRecorder
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		rec = d.dynamoDB(r, target, body)
	} else {
		rec = d.s3(r, body)
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// serve passes a request, with body, to the emulator.
func (d *Double) serve(r *http.Request, body []byte) *httptest.ResponseRecorder {
	in := r.Clone(r.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	rec := httptest.NewRecorder()
	d.next.ServeHTTP(rec, in)
	return rec
}

// take admits cost from the bucket named key (created at rate), all or
// nothing; a cost of 0 is admitted while the bucket is not in debt.
func (d *Double) take(key string, rate, cost float64) bool {
	if rate <= 0 {
		return true
	}
	b := d.bucketLocked(key, rate)
	// A request larger than the whole burst is admitted to a full bucket
	// and leaves it in debt: the service lets it through, then waits.
	if b.tokens <= 0 || b.tokens < min(cost, b.capacity) {
		return false
	}
	b.tokens -= cost
	return true
}

// charge takes cost after the fact (a read), leaving the bucket in debt
// when it had less.
func (d *Double) charge(key string, rate, cost float64) {
	if rate > 0 {
		d.bucketLocked(key, rate).tokens -= cost
	}
}

// bucketLocked returns the refilled bucket named key; d.mu is held.
func (d *Double) bucketLocked(key string, rate float64) *bucket {
	b, ok := d.buckets[key]
	if !ok {
		b = newBucket(rate, d.limits.Burst)
		d.buckets[key] = b
	}
	b.refill(time.Now())
	return b
}

func bucketKey(kind, table, partition string) string {
	return fmt.Sprintf("%s\x00%s\x00%s", kind, table, partition)
}
