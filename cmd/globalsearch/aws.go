package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/graphrag-global/graphrag-global/shared/awsconfig"
)

// awsConfig is awsconfig.Load, its invalid input a usageError.
func awsConfig(ctx context.Context, what string) (aws.Config, error) {
	cfg, err := awsconfig.Load(ctx, what)
	return cfg, asUsage(err)
}

// dynamoDBClient is the DynamoDB client of the table flags.
func dynamoDBClient(ctx context.Context) (*dynamodb.Client, error) {
	cfg, err := awsConfig(ctx, "DynamoDB")
	if err != nil {
		return nil, err
	}
	return dynamodb.NewFromConfig(cfg), nil
}
