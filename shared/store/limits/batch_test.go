package limits_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store/limits"
)

func noLatency() limits.Limits {
	lim := limits.AWS
	lim.Latency = 0
	return lim
}

// TestTransactWritesCount: a transaction's items cost twice their units,
// and a transaction is admitted whole or refused whole.
func TestTransactWritesCount(t *testing.T) {
	cases := []struct {
		name      string
		before    int // write units spent first, in 1 KB puts
		items     int // 1 KB puts in the transaction
		wantUnits float64
		wantFail  bool
	}{
		{name: "counted twice", items: 2, wantUnits: 4},
		{name: "fits exactly", before: 990, items: 5, wantUnits: 1000},
		{name: "one unit over", before: 991, items: 5, wantUnits: 991, wantFail: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, d := env(t, noLatency(), 1)
				for i := range tc.before {
					require.NoError(t, put(t.Context(), c, item("a", fmt.Sprint("before", i), 1024)))
				}
				var tx []types.TransactWriteItem
				for i := range tc.items {
					tx = append(tx, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: item("a", fmt.Sprint("tx", i), 1024)}})
				}
				_, err := c.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: tx})
				assert.Equal(t, tc.wantUnits, d.Stats().WriteUnits[table])
				if !tc.wantFail {
					assert.NoError(t, err)
					assert.Len(t, scan(t, c), tc.before+tc.items)
					return
				}
				requireThrottled(t, err, "TableWriteKeyRangeThroughputExceeded")
				assert.Len(t, scan(t, c), tc.before, "no item of a refused transaction is written")
			})
		})
	}
}

// TestBatchWriteUnprocessed: a BatchWriteItem writes the items its
// partitions have room for, in order, and returns the rest unprocessed; a
// call none of whose items fits is refused whole.
func TestBatchWriteUnprocessed(t *testing.T) {
	cases := []struct {
		name          string
		sizeKB        int // each of the batch's 25 items
		calls         int // sent at once, one after another
		wantWritten   int
		wantLeft      []int // unprocessed per call
		wantThrottled int   // calls refused whole
	}{
		{name: "under the rate", sizeKB: 10, calls: 1, wantWritten: 25, wantLeft: []int{0}},
		{name: "partly over", sizeKB: 100, calls: 1, wantWritten: 10, wantLeft: []int{15}},
		{name: "the next call is refused whole", sizeKB: 100, calls: 2, wantWritten: 10, wantLeft: []int{15, 25}, wantThrottled: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, d := env(t, noLatency(), 1)
				for call := range tc.calls {
					var reqs []types.WriteRequest
					for i := range 25 {
						reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item("a", fmt.Sprint(call, "-", i), tc.sizeKB*1024)}})
					}
					out, err := c.BatchWriteItem(t.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
					if tc.wantLeft[call] == 25 {
						requireThrottled(t, err, "TableWriteKeyRangeThroughputExceeded")
						continue
					}
					require.NoError(t, err)
					assert.Len(t, out.UnprocessedItems[table], tc.wantLeft[call])
				}
				assert.Len(t, scan(t, c), tc.wantWritten)
				assert.Equal(t, tc.wantThrottled, d.Stats().Throttled)
			})
		})
	}
}

// TestReadRate: reads are charged 4 KB units of what they return (half
// for an eventually consistent read) after they are served, and a
// partition in debt refuses reads until its 3,000 units a second have
// paid it back; a BatchGetItem returns such keys unprocessed.
func TestReadRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, d := env(t, noLatency(), 1)
		// 100 items of 100 KB: a Query of them costs 2,500 units.
		for i := range 100 {
			require.NoError(t, put(t.Context(), c, item("a", fmt.Sprintf("%03d", i), 100*1024)))
			time.Sleep(100 * time.Millisecond) // writes at their own rate
		}
		require.NoError(t, put(t.Context(), c, item("b", "small", 4096)))
		get := func(pk, sk string, consistent bool) error {
			_, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(consistent),
				Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}})
			return err
		}
		require.NoError(t, get("b", "small", true))
		require.NoError(t, get("b", "small", false))
		assert.Equal(t, 1.5, d.Stats().ReadUnits[table], "4 KB strongly consistent, then eventually")

		// A Query reads 1 MB a page: eleven 100 KB items, 275 units.
		query := func() (pages int, err error) {
			p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
				KeyConditionExpression:    aws.String("#pk = :pk"),
				ExpressionAttributeNames:  map[string]string{"#pk": "pk"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "a"}}})
			n := 0
			for p.HasMorePages() {
				page, err := p.NextPage(t.Context())
				if err != nil {
					return pages, err
				}
				pages++
				n += len(page.Items)
			}
			assert.Equal(t, 100, n, "every item, once")
			return pages, nil
		}
		var out *dynamodb.BatchGetItemOutput
		pages, err := query()
		require.NoError(t, err)
		assert.Equal(t, 10, pages)
		assert.Equal(t, 2501.5, d.Stats().ReadUnits[table])
		// 500 units left: two pages, and the third finds the partition in debt.
		pages, err = query()
		requireThrottled(t, err, "TableReadKeyRangeThroughputExceeded")
		assert.Equal(t, 2, pages)
		require.NoError(t, get("b", "small", true), "another partition is not in debt")

		keys := func(pks ...string) []map[string]types.AttributeValue {
			var out []map[string]types.AttributeValue
			for _, pk := range pks {
				sk := "small"
				if pk == "a" {
					sk = "000"
				}
				out = append(out, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}})
			}
			return out
		}
		out, err = c.BatchGetItem(t.Context(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys("a", "b"), ConsistentRead: aws.Bool(true)}}})
		require.NoError(t, err)
		assert.Len(t, out.Responses[table], 1)
		assert.Equal(t, keys("a"), out.UnprocessedKeys[table].Keys)
		assert.True(t, aws.ToBool(out.UnprocessedKeys[table].ConsistentRead), "unprocessed keys keep their read options")
		_, err = c.BatchGetItem(t.Context(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys("a")}}})
		requireThrottled(t, err, "TableReadKeyRangeThroughputExceeded")

		time.Sleep(time.Second) // 50 units of debt paid back, and room for a whole Query
		_, err = query()
		require.NoError(t, err)
	})
}

// TestS3Rates: a prefix takes 3,500 PUT-class and 5,500 GET-class requests
// a second; past them S3 answers 503 SlowDown; another prefix, or the next
// second, has room.
func TestS3Rates(t *testing.T) {
	cases := []struct {
		name      string
		method    string
		n         int
		other     string // the last request's path, if not the prefix's
		wait      time.Duration
		unlimited bool
		wantSlow  bool
	}{
		{name: "puts under the rate", method: http.MethodPut, n: 3500},
		{name: "puts over the rate", method: http.MethodPut, n: 3501, wantSlow: true},
		{name: "deletes count as puts", method: http.MethodDelete, n: 3501, wantSlow: true},
		{name: "gets under the rate", method: http.MethodGet, n: 5500},
		{name: "gets over the rate", method: http.MethodGet, n: 5501, wantSlow: true},
		{name: "another prefix", method: http.MethodPut, n: 3501, other: "/bucket/q2/r1/000001"},
		{name: "the next second", method: http.MethodPut, n: 3501, wait: time.Second},
		{name: "a rate of 0 is no limit", method: http.MethodPut, n: 10_000, unlimited: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				served := 0
				lim := noLatency()
				if tc.unlimited {
					lim.S3Puts = 0
				}
				d := limits.New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { served++ }), lim)
				do := func(path string) *http.Response {
					r, err := http.NewRequest(tc.method, "http://s3.limits.test"+path, nil) // no body, as the SDK sends a GET
					require.NoError(t, err)
					resp, err := d.Do(r)
					require.NoError(t, err)
					return resp
				}
				for i := range tc.n - 1 {
					require.Equal(t, http.StatusOK, do(fmt.Sprintf("/bucket/q1/r1/%06d", i)).StatusCode)
				}
				time.Sleep(tc.wait)
				last := "/bucket/q1/r1/last"
				if tc.other != "" {
					last = tc.other
				}
				resp := do(last)
				if !tc.wantSlow {
					assert.Equal(t, http.StatusOK, resp.StatusCode)
					assert.Equal(t, tc.n, served)
					return
				}
				assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
				body := make([]byte, 512)
				n, _ := resp.Body.Read(body)
				assert.Contains(t, string(body[:n]), "<Code>SlowDown</Code>")
				assert.Equal(t, tc.n-1, served)
			})
		})
	}
}

// TestStale: while Stale lasts, an eventually consistent Query page or
// BatchGetItem answer that holds items comes back without its first one
// (a page keeps its LastEvaluatedKey, so the rest still reads); strongly
// consistent reads, and eventually consistent ones after it, are whole.
func TestStale(t *testing.T) {
	cases := []struct {
		name       string
		stale      int
		consistent bool
		wantQuery  int // items a Query of the partition returns
		wantGet    int // of the two keys asked
		wantStale  int
	}{
		{name: "fresh", wantQuery: 3, wantGet: 2},
		{name: "one short answer", stale: 1, wantQuery: 2, wantGet: 2, wantStale: 1},
		{name: "two short answers", stale: 2, wantQuery: 2, wantGet: 1, wantStale: 2},
		{name: "strongly consistent reads are whole", stale: 5, consistent: true, wantQuery: 3, wantGet: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, d := env(t, noLatency(), 1)
				for _, sk := range []string{"1", "2", "3"} {
					require.NoError(t, put(t.Context(), c, item("a", sk, 100)))
				}
				d.Stale(tc.stale)
				q, err := c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(tc.consistent),
					KeyConditionExpression:    aws.String("#pk = :pk"),
					ExpressionAttributeNames:  map[string]string{"#pk": "pk"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "a"}}})
				require.NoError(t, err)
				assert.Len(t, q.Items, tc.wantQuery)
				assert.Equal(t, int32(tc.wantQuery), q.Count)
				key := func(sk string) map[string]types.AttributeValue {
					return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: sk}}
				}
				g, err := c.BatchGetItem(t.Context(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
					table: {Keys: []map[string]types.AttributeValue{key("1"), key("3")}, ConsistentRead: aws.Bool(tc.consistent)}}})
				require.NoError(t, err)
				assert.Len(t, g.Responses[table], tc.wantGet)
				assert.Empty(t, g.UnprocessedKeys, "a stale answer is not an unprocessed one")
				assert.Equal(t, tc.wantStale, d.Stats().Stale)
			})
		})
	}
}

// TestStalePageReadsOn: a short page of a paginated Query keeps its
// LastEvaluatedKey, so the pages after it still read.
func TestStalePageReadsOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, d := env(t, noLatency(), 1)
		for i := range 30 { // 100 KB each: three pages
			require.NoError(t, put(t.Context(), c, item("a", fmt.Sprintf("%03d", i), 100*1024)))
			time.Sleep(100 * time.Millisecond)
		}
		d.Stale(1)
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String(table),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "pk"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "a"}}})
		var sks []string
		for p.HasMorePages() {
			page, err := p.NextPage(t.Context())
			require.NoError(t, err)
			for _, it := range page.Items {
				sks = append(sks, it["sk"].(*types.AttributeValueMemberS).Value)
			}
		}
		require.Len(t, sks, 29, "one item short")
		assert.Equal(t, "001", sks[0], "the first page lacks its first item")
		assert.Equal(t, "029", sks[28], "and the pages after it read on")
	})
}
