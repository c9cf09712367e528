package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TablesAPI is what CreateTables needs of *dynamodb.Client.
type TablesAPI interface {
	dynamodb.DescribeTableAPIClient
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// CreateTables creates the tables that are named (an empty name is
// skipped) with on-demand billing, waits until they are active and enables
// TTL on the runs table. A table that already exists is left as it is, so
// local setup can run it every time. Production tables belong to the SAM
// template; this is for tests and local emulators.
func CreateTables(ctx context.Context, client TablesAPI, t Tables) error {
	if t.Index != "" {
		if err := createTable(ctx, client, t.Index, attrNamespace); err != nil {
			return err
		}
	}
	if t.Runs != "" {
		if err := createTable(ctx, client, t.Runs, attrQueryID); err != nil {
			return err
		}
		_, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName: aws.String(t.Runs),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{
				AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true),
			},
		})
		// Enabling TTL twice is refused as a validation error; that is the
		// state we want.
		var apiErr interface{ ErrorMessage() string }
		if err != nil && !(errors.As(err, &apiErr) && isTTLAlreadyEnabled(apiErr.ErrorMessage())) {
			return wrap(err, "enable TTL on table %s", t.Runs)
		}
	}
	return nil
}

func isTTLAlreadyEnabled(msg string) bool {
	return strings.Contains(msg, "already enabled")
}

func createTable(ctx context.Context, client TablesAPI, name, partitionKey string) error {
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(partitionKey), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrSK), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(partitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return wrap(err, "create table %s", name)
	}
	w := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 500*time.Millisecond, 5*time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	return nil
}
