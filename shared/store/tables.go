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

// Tables names the tables CreateTables creates; an empty name is skipped.
type Tables struct {
	Index    string
	Runs     string
	MapCache string
}

// CreateTables creates the tables that are named (an empty name is
// skipped) with on-demand billing, waits until they are active and enables
// TTL on the runs table. A table that already exists is left as it is, so
// local setup can run it every time. Production tables belong to the SAM
// template; this is for tests and local emulators.
func CreateTables(ctx context.Context, client TablesAPI, t Tables) error {
	if t.Index != "" {
		if err := createTable(ctx, client, t.Index, attrNamespace, attrSK); err != nil {
			return err
		}
	}
	if t.Runs != "" {
		if err := createTable(ctx, client, t.Runs, attrQueryID, attrSK); err != nil {
			return err
		}
		if err := enableTTL(ctx, client, t.Runs); err != nil {
			return err
		}
	}
	if t.MapCache != "" {
		if err := createTable(ctx, client, t.MapCache, "key", ""); err != nil {
			return err
		}
		if err := enableTTL(ctx, client, t.MapCache); err != nil {
			return err
		}
	}
	return nil
}

func enableTTL(ctx context.Context, client TablesAPI, table string) error {
	_, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	// Enabling TTL twice is refused as a validation error; that is the
	// state we want.
	var apiErr interface{ ErrorMessage() string }
	if err != nil && !(errors.As(err, &apiErr) && isTTLAlreadyEnabled(apiErr.ErrorMessage())) {
		return wrap(err, "enable TTL on table %s", table)
	}
	return nil
}

func isTTLAlreadyEnabled(msg string) bool {
	return strings.Contains(msg, "already enabled")
}

// createTable creates a table keyed by partitionKey and, unless it is "",
// sortKey, both strings.
func createTable(ctx context.Context, client TablesAPI, name, partitionKey, sortKey string) error {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(partitionKey), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(partitionKey), KeyType: types.KeyTypeHash},
		},
	}
	if sortKey != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sortKey), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sortKey), KeyType: types.KeyTypeRange})
	}
	_, err := client.CreateTable(ctx, in)
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
