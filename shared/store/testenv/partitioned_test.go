package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store/limits"
)

const ptable = "t"

// partitioned is a client of a fresh PartitionedMinidynHandler with table
// ptable (pk, sk) created, and the router behind it, whose servers the
// tests count.
func partitioned(t *testing.T) (*dynamodb.Client, *router) {
	t.Helper()
	h := PartitionedMinidynHandler(limits.QueryPartition)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	client := DynamoDBClient(t, hs.URL)
	_, err := client.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:   aws.String(ptable),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
	require.NoError(t, err)
	return client, h.(shim).next.(*router)
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": str(pk), "sk": str(sk)}
}

func item(pk, sk, v string) map[string]types.AttributeValue {
	it := key(pk, sk)
	it["v"] = str(v)
	return it
}

// servers is how many partition servers table has.
func servers(r *router, table string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.tables[table]; t != nil {
		return len(t.parts)
	}
	return 0
}

func put(t *testing.T, c *dynamodb.Client, items ...map[string]types.AttributeValue) {
	t.Helper()
	for _, it := range items {
		_, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(ptable), Item: it})
		require.NoError(t, err)
	}
}

func get(t *testing.T, c *dynamodb.Client, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(ptable), Key: key(pk, sk), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

func apiCode(t *testing.T, err error) string {
	t.Helper()
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "an API error: %v", err)
	return api.ErrorCode()
}

// TestPartitionedItemOperations: each single-item operation reaches the
// item's partition, one server per partition key value, and reads back
// there.
func TestPartitionedItemOperations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		do   func(ctx context.Context, c *dynamodb.Client) error
		want map[string]map[string]types.AttributeValue // pk -> the item at sk "1", nil: none
	}{
		{"put", func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(ptable), Item: item("b", "1", "new")})
			return err
		}, map[string]map[string]types.AttributeValue{"a": item("a", "1", "a"), "b": item("b", "1", "new"), "c": item("c", "1", "c")}},
		{"update", func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(ptable), Key: key("c", "1"),
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": str("updated")}})
			return err
		}, map[string]map[string]types.AttributeValue{"a": item("a", "1", "a"), "b": item("b", "1", "b"), "c": item("c", "1", "updated")}},
		{"delete", func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(ptable), Key: key("a", "1")})
			return err
		}, map[string]map[string]types.AttributeValue{"a": nil, "b": item("b", "1", "b"), "c": item("c", "1", "c")}},
		{"a delete of a partition never written makes no server", func(ctx context.Context, c *dynamodb.Client) error {
			out, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(ptable), Key: key("z", "1"), ReturnValues: types.ReturnValueAllOld})
			if err == nil && out.Attributes != nil {
				return fmt.Errorf("deleted %v from a partition never written", out.Attributes)
			}
			return err
		}, map[string]map[string]types.AttributeValue{"a": item("a", "1", "a"), "z": nil}},
		{"a condition is checked in the item's partition", func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(ptable), Item: item("b", "1", "lost"),
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
			var failed *types.ConditionalCheckFailedException
			if !errors.As(err, &failed) {
				return fmt.Errorf("want a failed condition, got %v", err)
			}
			return nil
		}, map[string]map[string]types.AttributeValue{"a": item("a", "1", "a"), "b": item("b", "1", "b"), "c": item("c", "1", "c")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, r := partitioned(t)
			put(t, c, item("a", "1", "a"), item("b", "1", "b"), item("c", "1", "c"))
			require.NoError(t, tc.do(t.Context(), c))
			for pk, want := range tc.want {
				assert.Equal(t, want, get(t, c, pk, "1"), "partition %s", pk)
			}
			assert.Equal(t, 3, servers(r, ptable), "one server per partition key value")
		})
	}
}

// TestPartitionedQuery: a Query reads its own partition among many, in
// sort key order, and its pages continue through ExclusiveStartKey within
// that partition; a Query that names no partition, or a secondary index,
// is refused.
func TestPartitionedQuery(t *testing.T) {
	t.Parallel()
	c, r := partitioned(t)
	for _, pk := range []string{"a", "b", "c"} {
		for i := range 5 {
			put(t, c, item(pk, strconv.Itoa(i), pk+strconv.Itoa(i)))
		}
	}
	require.Equal(t, 3, servers(r, ptable))
	tests := []struct {
		name     string
		in       dynamodb.QueryInput
		wantErr  string
		wantSK   []string
		wantPage int // most items in a page
	}{
		{name: "one partition among many", in: dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("b")},
		}, wantSK: []string{"0", "1", "2", "3", "4"}, wantPage: 5},
		{name: "pages within the partition", in: dynamodb.QueryInput{
			KeyConditionExpression: aws.String("#p = :p AND sk >= :s"), ExpressionAttributeNames: map[string]string{"#p": "pk"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("c"), ":s": str("1")}, Limit: aws.Int32(2),
		}, wantSK: []string{"1", "2", "3", "4"}, wantPage: 2},
		{name: "a partition never written reads empty", in: dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("z")},
		}, wantPage: 0},
		{name: "no partition named", in: dynamodb.QueryInput{
			KeyConditionExpression: aws.String("sk = :s"), ExpressionAttributeValues: map[string]types.AttributeValue{":s": str("1")},
		}, wantErr: "ValidationException"},
		{name: "a secondary index", in: dynamodb.QueryInput{IndexName: aws.String("by-v"),
			KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": str("a1")},
		}, wantErr: "ValidationException"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = aws.String(ptable)
			var sks []string
			for p := dynamodb.NewQueryPaginator(c, &in); p.HasMorePages(); {
				page, err := p.NextPage(t.Context())
				if tc.wantErr != "" {
					require.Error(t, err)
					assert.Equal(t, tc.wantErr, apiCode(t, err))
					return
				}
				require.NoError(t, err)
				assert.LessOrEqual(t, len(page.Items), tc.wantPage)
				for _, it := range page.Items {
					assert.Equal(t, in.ExpressionAttributeValues[":p"], it["pk"], "only the partition asked for")
					sks = append(sks, it["sk"].(*types.AttributeValueMemberS).Value)
				}
			}
			assert.Equal(t, tc.wantSK, sks)
		})
	}
	assert.Equal(t, 3, servers(r, ptable), "a Query of a partition never written makes no server")
}
