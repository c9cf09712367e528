package main

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// awsConfig loads the standard AWS configuration chain (environment,
// shared files, SSO, instance roles) for what (a flag, in messages), which
// needs a region. Endpoints come from it too: a local emulator is
// AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL_BEDROCK_RUNTIME, so the CLI
// has no endpoint flag of its own.
func awsConfig(ctx context.Context, what string) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration for %s: %w", what, err)
	}
	if cfg.Region == "" {
		return aws.Config{}, &usageError{what + " needs an AWS region: set AWS_REGION, or region in the AWS_PROFILE's config"}
	}
	return cfg, nil
}

// dynamoDBClient is the DynamoDB client of the table flags.
func dynamoDBClient(ctx context.Context) (*dynamodb.Client, error) {
	cfg, err := awsConfig(ctx, "DynamoDB")
	if err != nil {
		return nil, err
	}
	return dynamodb.NewFromConfig(cfg), nil
}
