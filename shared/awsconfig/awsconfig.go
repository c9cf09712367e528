// Package awsconfig loads the standard AWS configuration for the CLI's
// adapters (Bedrock, DynamoDB) and checks its credentials before the first
// call, so that a missing region or login fails with what to do instead
// of the SDK's last provider's error.
package awsconfig

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Load loads the standard AWS configuration chain (environment, shared
// files, SSO, instance roles) for what (a flag, in messages), which needs a
// region. Endpoints come from it too: a local emulator is
// AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL_BEDROCK_RUNTIME, so the CLI
// has no endpoint flag of its own. A missing region is invalid input.
func Load(ctx context.Context, what string) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration for %s: %w", what, err)
	}
	if cfg.Region == "" {
		return aws.Config{}, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s needs an AWS region: set AWS_REGION, or region in the AWS_PROFILE's config", what)
	}
	return cfg, nil
}

// CheckCredentials resolves cfg's credentials once, before the first call
// that needs them, for what (a flag, in messages). Left to the first model
// call, a missing or expired login would fail every map batch twice with
// the SDK's last provider's error (often the EC2 instance metadata
// service's) and say nothing of what to do. The credentials cache keeps
// what this resolves for the calls.
func CheckCredentials(ctx context.Context, cfg aws.Config, what string) error {
	if cfg.Credentials == nil {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "%s found no AWS credentials provider", what)
	}
	_, err := cfg.Credentials.Retrieve(ctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return globalsearch.Errorf(globalsearch.KindInvalidInput, "%s needs AWS credentials and found none that work: set AWS_PROFILE to a profile of ~/.aws/config "+
		"(for an SSO profile, run `aws sso login --profile <name>` first; again when the login expires), "+
		"or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; `aws sts get-caller-identity` shows what the AWS CLI finds (the SDK said: %v)", what, err)
}
