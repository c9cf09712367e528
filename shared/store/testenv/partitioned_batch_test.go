package testenv

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/truora/minidyn/server"
)

func putRequest(it map[string]types.AttributeValue) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

// TestPartitionedBatchWrite: a BatchWriteItem over several partitions is
// served by each partition's server, and one past DynamoDB's 25 items is
// refused whole.
func TestPartitionedBatchWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reqs        []types.WriteRequest
		wantErr     string
		wantServers int
		want        map[[2]string]string // pk, sk -> v; "" absent
	}{
		{name: "one partition", reqs: []types.WriteRequest{putRequest(item("a", "1", "x")), putRequest(item("a", "2", "y"))},
			wantServers: 2, want: map[[2]string]string{{"a", "1"}: "x", {"a", "2"}: "y", {"old", "1"}: "old"}},
		{name: "puts and a delete over three partitions", reqs: []types.WriteRequest{
			putRequest(item("a", "1", "x")), putRequest(item("b", "1", "y")),
			{DeleteRequest: &types.DeleteRequest{Key: key("old", "1")}}, putRequest(item("c", "1", "z")),
		}, wantServers: 4, want: map[[2]string]string{{"a", "1"}: "x", {"b", "1"}: "y", {"c", "1"}: "z", {"old", "1"}: ""}},
		{name: "26 items are refused whole", reqs: func() []types.WriteRequest {
			var out []types.WriteRequest
			for i := range 26 {
				out = append(out, putRequest(item(strconv.Itoa(i), "1", "x")))
			}
			return out
		}(), wantErr: "ValidationException", wantServers: 2, want: map[[2]string]string{{"1", "1"}: "", {"old", "1"}: "old"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, r := partitioned(t)
			put(t, c, item("old", "1", "old"))
			out, err := c.BatchWriteItem(t.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{ptable: tc.reqs}})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, apiCode(t, err))
			} else {
				require.NoError(t, err)
				assert.Empty(t, out.UnprocessedItems[ptable])
			}
			for k, v := range tc.want {
				got := get(t, c, k[0], k[1])
				if v == "" {
					assert.Nil(t, got, "%v", k)
					continue
				}
				assert.Equal(t, item(k[0], k[1], v), got, "%v", k)
			}
			assert.Equal(t, tc.wantServers, servers(r, ptable))
		})
	}
}

// TestPartitionedBatchUnprocessed: what each partition's server leaves
// unprocessed comes back merged, writes and keys alike.
func TestPartitionedBatchUnprocessed(t *testing.T) {
	t.Parallel()
	c, r := partitioned(t)
	put(t, c, item("a", "1", "a"), item("b", "1", "b"), item("c", "1", "c"))
	// Partitions a and c leave everything unprocessed; each server holds
	// only its own partition.
	all := func(int, map[string]*server.AttributeValue) bool { return true }
	r.mu.Lock()
	r.tables[ptable].parts[canonical(json.RawMessage(`{"S":"a"}`))].(*server.Server).EmulateUnprocessedItems(ptable, all)
	r.tables[ptable].parts[canonical(json.RawMessage(`{"S":"c"}`))].(*server.Server).EmulateUnprocessedItems(ptable, all)
	r.mu.Unlock()

	w, err := c.BatchWriteItem(t.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{ptable: {
		putRequest(item("a", "2", "x")), putRequest(item("b", "2", "y")), putRequest(item("c", "2", "z")),
	}}})
	require.NoError(t, err)
	assert.ElementsMatch(t, []types.WriteRequest{putRequest(item("a", "2", "x")), putRequest(item("c", "2", "z"))}, w.UnprocessedItems[ptable])
	assert.Equal(t, item("b", "2", "y"), get(t, c, "b", "2"), "the processed part is written")

	g, err := c.BatchGetItem(t.Context(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{ptable: {
		Keys: []map[string]types.AttributeValue{key("a", "1"), key("b", "1"), key("c", "1")}, ConsistentRead: aws.Bool(true),
	}}})
	require.NoError(t, err)
	assert.Equal(t, []map[string]types.AttributeValue{item("b", "1", "b")}, g.Responses[ptable])
	require.Contains(t, g.UnprocessedKeys, ptable)
	assert.ElementsMatch(t, []map[string]types.AttributeValue{key("a", "1"), key("c", "1")}, g.UnprocessedKeys[ptable].Keys)
	assert.True(t, aws.ToBool(g.UnprocessedKeys[ptable].ConsistentRead), "an unprocessed table keeps its read options")
}

// TestPartitionedBatchGet: a BatchGetItem over several partitions answers
// every item found, with the table's projection, and one past DynamoDB's
// 100 keys is refused whole.
func TestPartitionedBatchGet(t *testing.T) {
	t.Parallel()
	c, r := partitioned(t)
	put(t, c, item("a", "1", "a1"), item("a", "2", "a2"), item("b", "1", "b1"), item("c", "1", "c1"))
	many := make([]map[string]types.AttributeValue, 0, 101)
	for i := range 101 {
		many = append(many, key("a", strconv.Itoa(i)))
	}
	tests := []struct {
		name    string
		in      types.KeysAndAttributes
		wantErr string
		want    []map[string]types.AttributeValue
	}{
		{name: "three partitions and a missing key", in: types.KeysAndAttributes{
			Keys: []map[string]types.AttributeValue{key("a", "1"), key("b", "1"), key("c", "1"), key("a", "2"), key("z", "1")},
		}, want: []map[string]types.AttributeValue{item("a", "1", "a1"), item("a", "2", "a2"), item("b", "1", "b1"), item("c", "1", "c1")}},
		{name: "the projection holds in every part", in: types.KeysAndAttributes{
			Keys: []map[string]types.AttributeValue{key("a", "1"), key("c", "1")}, ProjectionExpression: aws.String("v"),
		}, want: []map[string]types.AttributeValue{{"v": str("a1")}, {"v": str("c1")}}},
		{name: "101 keys are refused whole", in: types.KeysAndAttributes{Keys: many}, wantErr: "ValidationException"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.BatchGetItem(t.Context(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{ptable: tc.in}})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, apiCode(t, err))
				return
			}
			require.NoError(t, err)
			assert.ElementsMatch(t, tc.want, out.Responses[ptable])
			assert.Empty(t, out.UnprocessedKeys)
		})
	}
	assert.Equal(t, 3, servers(r, ptable), "reads make no server")
}

// TestMerge checks the merge of split answers on what DynamoDB sends and
// minidyn does not: ConsumedCapacity summed per table, and item
// collection metrics joined.
func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		parts  []string
		fields []string
		want   string
	}{
		{"capacity summed per table", []string{
			`{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"t","CapacityUnits":2,"Table":{"CapacityUnits":2}}]}`,
			`{"UnprocessedItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}]},"ConsumedCapacity":[{"TableName":"t","CapacityUnits":3,"Table":{"CapacityUnits":3}},{"TableName":"u","CapacityUnits":1}]}`,
		}, []string{"UnprocessedItems"},
			`{"UnprocessedItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}]},"ConsumedCapacity":[{"TableName":"t","CapacityUnits":5,"Table":{"CapacityUnits":5}},{"TableName":"u","CapacityUnits":1}]}`},
		{"responses and unprocessed keys joined", []string{
			`{"Responses":{"t":[{"pk":{"S":"a"}}]},"UnprocessedKeys":{"t":{"Keys":[{"pk":{"S":"x"}}],"ConsistentRead":true}}}`,
			`{"Responses":{"t":[{"pk":{"S":"b"}}],"u":[]},"UnprocessedKeys":{"t":{"Keys":[{"pk":{"S":"y"}}],"ConsistentRead":true}}}`,
		}, []string{"Responses", "UnprocessedKeys"},
			`{"Responses":{"t":[{"pk":{"S":"a"}},{"pk":{"S":"b"}}],"u":[]},"UnprocessedKeys":{"t":{"Keys":[{"pk":{"S":"x"}},{"pk":{"S":"y"}}],"ConsistentRead":true}}}`},
		{"metrics joined per table", []string{
			`{"ItemCollectionMetrics":{"t":[{"SizeEstimateRangeGB":[0,1]}]}}`, `{"ItemCollectionMetrics":{"t":[{"SizeEstimateRangeGB":[1,2]}]}}`,
		}, []string{"ItemCollectionMetrics"},
			`{"ItemCollectionMetrics":{"t":[{"SizeEstimateRangeGB":[0,1]},{"SizeEstimateRangeGB":[1,2]}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newMerge()
			for _, p := range tc.parts {
				require.NoError(t, m.add([]byte(p), tc.fields...))
			}
			a := m.answer()
			assert.Equal(t, http.StatusOK, a.status)
			assert.JSONEq(t, tc.want, string(a.body))
		})
	}
	t.Run("an answer that does not decode", func(t *testing.T) {
		for _, body := range []string{`not json`, `{"Responses":[]}`, `{"ConsumedCapacity":{}}`} {
			assert.Error(t, newMerge().add([]byte(body), "Responses"), body)
		}
	})
}

// TestPartitionedGroupsInOrder: a split request is served in the order
// its entries came, tables by name.
func TestPartitionedGroupsInOrder(t *testing.T) {
	t.Parallel()
	var g groups
	for i, k := range [][2]string{{"t", "b"}, {"t", "a"}, {"t", "b"}, {"s", "a"}} {
		g.add(k[0], k[1], i)
	}
	var got []string
	for _, part := range g.list {
		got = append(got, part.table+"/"+part.pk+":"+strconv.Itoa(len(part.at)))
	}
	assert.Equal(t, []string{"t/b:2", "t/a:1", "s/a:1"}, got)
	assert.True(t, slices.Equal([]int{0, 2}, g.list[0].at))
}
