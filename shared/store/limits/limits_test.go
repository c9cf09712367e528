package limits_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store/limits"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

const table = "t"

// env is a double in front of minidyn with one table (pk, sk), and an SDK
// client through it making attempts attempts a call.
func env(t *testing.T, lim limits.Limits, attempts int) (*dynamodb.Client, *limits.Double) {
	t.Helper()
	h, _ := testenv.MinidynHandler()
	d := limits.New(h, lim)
	c := d.DynamoDB(func(o *dynamodb.Options) { o.RetryMaxAttempts = attempts })
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	return c, d
}

// item is an item of partition pk whose size is exactly size bytes.
func item(pk, sk string, size int) map[string]types.AttributeValue {
	pad := size - len("pk") - len(pk) - len("sk") - len(sk) - len("v")
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk},
		"v": &types.AttributeValueMemberS{Value: strings.Repeat("x", pad)},
	}
}

func put(ctx context.Context, c *dynamodb.Client, it map[string]types.AttributeValue) error {
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
	return err
}

// requireThrottled checks err is the error DynamoDB sends for a hot
// partition key, as the SDK decodes it.
func requireThrottled(t *testing.T, err error, reason string) {
	t.Helper()
	var pe *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, err, &pe)
	require.Len(t, pe.ThrottlingReasons, 1)
	assert.Equal(t, reason, aws.ToString(pe.ThrottlingReasons[0].Reason))
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:123456789012:table/"+table, aws.ToString(pe.ThrottlingReasons[0].Resource))
	assert.Contains(t, pe.ErrorMessage(), "Throughput exceeds the current capacity")
}

// TestWriteRate: one partition takes 1,000 write units a second (1 KB
// each, rounded up); another partition has its own; a second later there
// is room again; past the rate a write is refused as DynamoDB refuses it.
func TestWriteRate(t *testing.T) {
	cases := []struct {
		name     string
		writes   []sized       // in order, at time 0
		wait     time.Duration // before the last write
		wantFail bool          // the last write is refused
	}{
		{name: "under the rate", writes: repeat("a", 1024, 1000)},
		{name: "a part of a unit counts whole", writes: append(repeat("a", 1025, 500), repeat("a", 20, 1)...), wantFail: true},
		{name: "over the rate", writes: repeat("a", 1024, 1001), wantFail: true},
		{name: "another partition has its own rate", writes: append(repeat("a", 1024, 1000), repeat("b", 1024, 1000)...)},
		{name: "a second later there is room", writes: repeat("a", 1024, 1001), wait: time.Second},
		{name: "a tenth of a second refills a tenth", writes: append(repeat("a", 1024, 1000), repeat("a", 100*1024, 1)...), wait: 100 * time.Millisecond},
		{name: "not quite enough refill", writes: append(repeat("a", 1024, 1000), repeat("a", 101*1024, 1)...), wait: 100 * time.Millisecond, wantFail: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lim := limits.AWS
				lim.Latency = 0
				c, d := env(t, lim, 1)
				last := len(tc.writes) - 1
				for i, w := range tc.writes[:last] {
					require.NoError(t, put(t.Context(), c, item(w.pk, fmt.Sprint(i), w.size)), "write %d", i)
				}
				time.Sleep(tc.wait)
				err := put(t.Context(), c, item(tc.writes[last].pk, "last", tc.writes[last].size))
				if !tc.wantFail {
					assert.NoError(t, err)
					return
				}
				requireThrottled(t, err, "TableWriteKeyRangeThroughputExceeded")
				assert.Equal(t, 1, d.Stats().Throttled)
			})
		})
	}
}

// sized is a write of an item of size bytes to partition pk.
type sized struct {
	pk   string
	size int
}

func repeat(pk string, size, n int) []sized {
	out := make([]sized, n)
	for i := range out {
		out[i] = sized{pk, size}
	}
	return out
}

// TestSDKRetriesThrottling: the SDK's retryer treats the double's refusal
// as DynamoDB's (a throttle, retried with backoff), and its backoff runs
// on the simulated clock: the retried write succeeds after the wait, in no
// real time.
func TestSDKRetriesThrottling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := limits.AWS
		lim.Latency = 0
		c, d := env(t, lim, 10)
		for i := range 1000 {
			require.NoError(t, put(t.Context(), c, item("a", fmt.Sprint(i), 1024)))
		}
		start := time.Now()
		require.NoError(t, put(t.Context(), c, item("a", "more", 200*1024)))
		// 200 units come back at 1,000 a second: 0.2 s at least.
		assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
		assert.Positive(t, d.Stats().Throttled)
	})
}

// TestItemSize: DynamoDB stores items up to 400 KB, names and values
// counted, and refuses a larger one with a ValidationException, whole
// (a batch or a transaction with one such item writes nothing).
func TestItemSize(t *testing.T) {
	big := item("a", "big", limits.MaxItemSize+1)
	cases := []struct {
		name    string
		write   func(context.Context, *dynamodb.Client) error
		wantErr bool
	}{
		{"exactly 400 KB", func(ctx context.Context, c *dynamodb.Client) error {
			return put(ctx, c, item("a", "max", limits.MaxItemSize))
		}, false},
		{"put over 400 KB", func(ctx context.Context, c *dynamodb.Client) error { return put(ctx, c, big) }, true},
		{"batch with one over 400 KB", func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
				{PutRequest: &types.PutRequest{Item: item("a", "small", 40)}}, {PutRequest: &types.PutRequest{Item: big}},
			}}})
			return err
		}, true},
		{"transaction with one over 400 KB", func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: item("a", "small", 40)}}, {Put: &types.Put{TableName: aws.String(table), Item: big}},
			}})
			return err
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lim := limits.AWS
				lim.Latency = 0
				c, d := env(t, lim, 1)
				err := tc.write(t.Context(), c)
				if !tc.wantErr {
					assert.NoError(t, err)
					return
				}
				var api smithy.APIError
				require.True(t, errors.As(err, &api), "%v", err)
				assert.Equal(t, "ValidationException", api.ErrorCode())
				assert.Equal(t, "Item size has exceeded the maximum allowed size", api.ErrorMessage())
				assert.Equal(t, 1, d.Stats().Refused)
				assert.Empty(t, scan(t, c), "nothing is written")
			})
		})
	}
}

func scan(t *testing.T, c *dynamodb.Client) []map[string]types.AttributeValue {
	t.Helper()
	out, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(table)})
	require.NoError(t, err)
	return out.Items
}
