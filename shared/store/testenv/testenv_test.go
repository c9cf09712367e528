package testenv_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// TestMinidynShim checks what the shim promises: ACTIVE tables, TTL
// accepted, empty lists read back (as NULL) instead of breaking decoding.
func TestMinidynShim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testenv.Minidyn(t)
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("t"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("t")})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, desc.Table.TableStatus)
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String("t"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)},
	})
	require.NoError(t, err)

	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{
		"pk":   key["pk"],
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"full": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
	}})
	require.NoError(t, err)
	got, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberNULL{Value: true}, got.Item["list"])
	assert.Equal(t, &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}}, got.Item["full"])
}

// TestMotoAnswers starts moto_server (skipped without it, outside CI).
func TestMotoAnswers(t *testing.T) {
	t.Parallel()
	client := testenv.DynamoDBClient(t, testenv.Moto(t, testenv.MotoOptions{}))
	out, err := client.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Empty(t, out.TableNames, "a fresh server has no tables")
}
