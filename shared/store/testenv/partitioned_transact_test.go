package testenv

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func transactPut(it map[string]types.AttributeValue, absent bool) types.TransactWriteItem {
	p := &types.Put{TableName: aws.String(ptable), Item: it}
	if absent {
		p.ConditionExpression = aws.String("attribute_not_exists(pk)")
	}
	return types.TransactWriteItem{Put: p}
}

// TestPartitionedTransact: a transaction within one partition stays
// atomic; one over several is served part by part, its refusal's reasons
// at the items' own positions, and the parts before the refused one stay
// written (the documented loss of atomicity across partitions).
func TestPartitionedTransact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		items       []types.TransactWriteItem
		wantReasons []string // nil: the transaction succeeds
		want        map[[2]string]string
	}{
		{name: "one partition", items: []types.TransactWriteItem{
			transactPut(item("a", "2", "x"), true), transactPut(item("a", "3", "y"), false),
		}, want: map[[2]string]string{{"a", "2"}: "x", {"a", "3"}: "y"}},
		{name: "one partition refused is atomic", items: []types.TransactWriteItem{
			transactPut(item("a", "2", "x"), false), transactPut(item("a", "1", "lost"), true),
		}, wantReasons: []string{"None", "ConditionalCheckFailed"}, want: map[[2]string]string{{"a", "2"}: "", {"a", "1"}: "old"}},
		{name: "two partitions", items: []types.TransactWriteItem{
			transactPut(item("a", "2", "x"), true), transactPut(item("b", "2", "y"), true),
			{Update: &types.Update{TableName: aws.String(ptable), Key: key("a", "1"), UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": str("updated")}}},
		}, want: map[[2]string]string{{"a", "2"}: "x", {"b", "2"}: "y", {"a", "1"}: "updated"}},
		{name: "the second partition refused", items: []types.TransactWriteItem{
			transactPut(item("a", "2", "x"), false), transactPut(item("b", "2", "y"), false), transactPut(item("b", "1", "lost"), true),
		}, wantReasons: []string{"None", "None", "ConditionalCheckFailed"},
			want: map[[2]string]string{{"a", "2"}: "x", {"b", "2"}: "", {"b", "1"}: "old"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := partitioned(t)
			put(t, c, item("a", "1", "old"), item("b", "1", "old"))
			_, err := c.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: tc.items})
			if tc.wantReasons == nil {
				require.NoError(t, err)
			} else {
				var cancelled *types.TransactionCanceledException
				require.True(t, errors.As(err, &cancelled), "%v", err)
				var codes []string
				for _, r := range cancelled.CancellationReasons {
					codes = append(codes, aws.ToString(r.Code))
				}
				assert.Equal(t, tc.wantReasons, codes)
			}
			for k, v := range tc.want {
				got := get(t, c, k[0], k[1])
				if v == "" {
					assert.Nil(t, got, "%v", k)
					continue
				}
				assert.Equal(t, item(k[0], k[1], v), got, "%v", k)
			}
		})
	}
}

// TestPlaceReasons: an answer that is not a cancellation with one reason
// per item of the part is passed on as it came.
func TestPlaceReasons(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`not json`, `{"__type":"TransactionCanceledException","CancellationReasons":[{"Code":"None"}]}`} {
		a := answer{status: http.StatusBadRequest, body: []byte(body)}
		assert.Equal(t, a, placeReasons(a, []int{0, 2}, 3), body)
	}
}

// TestPartitionedScan: a whole-table Scan reads every partition's server;
// a paged or segmented one is refused.
func TestPartitionedScan(t *testing.T) {
	t.Parallel()
	c, _ := partitioned(t)
	empty, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(ptable)})
	require.NoError(t, err)
	assert.Empty(t, empty.Items, "a table with no partition")
	put(t, c, item("a", "1", "a"), item("b", "1", "b"), item("b", "2", "b"), item("c", "1", "c"))
	tests := []struct {
		name    string
		in      dynamodb.ScanInput
		wantErr bool
		want    []map[string]types.AttributeValue
	}{
		{name: "every partition", want: []map[string]types.AttributeValue{item("a", "1", "a"), item("b", "1", "b"), item("b", "2", "b"), item("c", "1", "c")}},
		{name: "filtered in every partition", in: dynamodb.ScanInput{FilterExpression: aws.String("sk = :s"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": str("1")}},
			want: []map[string]types.AttributeValue{item("a", "1", "a"), item("b", "1", "b"), item("c", "1", "c")}},
		{name: "a limit", in: dynamodb.ScanInput{Limit: aws.Int32(2)}, wantErr: true},
		{name: "a start key", in: dynamodb.ScanInput{ExclusiveStartKey: key("a", "1")}, wantErr: true},
		{name: "a segment", in: dynamodb.ScanInput{Segment: aws.Int32(0), TotalSegments: aws.Int32(2)}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = aws.String(ptable)
			out, err := c.Scan(t.Context(), &in)
			if tc.wantErr {
				require.Error(t, err)
				assert.Equal(t, "ValidationException", apiCode(t, err))
				return
			}
			require.NoError(t, err)
			assert.ElementsMatch(t, tc.want, out.Items)
			assert.Equal(t, int32(len(tc.want)), out.Count)
		})
	}
}

// TestPartitionedCatalog: the table operations are the catalog's, and it
// answers as minidyn does for what no partition serves.
func TestPartitionedCatalog(t *testing.T) {
	t.Parallel()
	c, r := partitioned(t)
	ctx := t.Context()
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(ptable)})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, desc.Table.TableStatus)
	require.Len(t, desc.Table.KeySchema, 2)
	assert.Equal(t, "pk", aws.ToString(desc.Table.KeySchema[0].AttributeName))
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(ptable),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	require.NoError(t, err, "the shim answers TTL")

	tests := []struct {
		name    string
		do      func() error
		wantErr string
	}{
		{"a table created twice", func() error {
			_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(ptable), BillingMode: types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
			return err
		}, "ResourceInUseException"},
		{"a table never created", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("none"), Item: item("a", "1", "x")})
			return err
		}, "ResourceNotFoundException"},
		{"an item without its partition key", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(ptable), Item: map[string]types.AttributeValue{"sk": str("1")}})
			return err
		}, "ValidationException"},
		{"an operation the router does not serve", func() error {
			_, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: aws.String(ptable), Key: key("a", "1")}}}})
			return err
		}, "ValidationException"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			require.Error(t, err)
			assert.Equal(t, tc.wantErr, apiCode(t, err))
		})
	}

	put(t, c, item("a", "1", "x"))
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(ptable)})
	require.NoError(t, err)
	assert.Nil(t, r.table(ptable), "a deleted table's partitions go with it")
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(ptable), Key: key("a", "1")})
	assert.Equal(t, "ResourceNotFoundException", apiCode(t, err))
}

// TestPartitionedRefusals: a request that does not decode is refused
// before any server sees it, and a split request's part refused by its
// server ends the call with that server's error.
func TestPartitionedRefusals(t *testing.T) {
	t.Parallel()
	c, r := partitioned(t)
	put(t, c, item("a", "1", "a"), item("b", "1", "b"))
	noSK := `{"pk":{"S":"b"}}`
	tests := []struct {
		name, op, body string
		wantType       string
	}{
		{"an item operation", "PutItem", `{`, "ValidationException"},
		{"a query", "Query", `{`, "ValidationException"},
		{"a batch write", "BatchWriteItem", `{"RequestItems":[]}`, "ValidationException"},
		{"a batch get", "BatchGetItem", `{"RequestItems":[]}`, "ValidationException"},
		{"a batch get's keys", "BatchGetItem", `{"RequestItems":{"t":{"Keys":{}}}}`, "ValidationException"},
		{"a transaction", "TransactWriteItems", `{"TransactItems":{}}`, "ValidationException"},
		{"a scan", "Scan", `{`, "ValidationException"},
		{"a split batch write's part", "BatchWriteItem",
			`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"sk":{"S":"2"}}}},{"PutRequest":{"Item":` + noSK + `}}]}}`, "ValidationException"},
		{"a split batch get's part", "BatchGetItem",
			`{"RequestItems":{"t":{"Keys":[{"pk":{"S":"a"},"sk":{"S":"1"}},` + noSK + `]}}}`, "ValidationException"},
		{"a split transaction's part", "TransactWriteItems",
			`{"TransactItems":[{"Put":{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"S":"3"}}}},{"Put":{"TableName":"t","Item":` + noSK + `}}]}`, "ValidationException"},
		{"a scan's part", "Scan", `{"TableName":"t","FilterExpression":"v = :v","ExpressionAttributeValues":{":v":{"S":"x"},":unused":{"S":"y"}}}`, "ValidationException"},
	}
	h := shim{r}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+tc.op)
			h.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Equal(t, tc.wantType, errorType(rec.Body.Bytes()), rec.Body.String())
		})
	}
}
