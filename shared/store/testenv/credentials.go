package testenv

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// StaticCredentials signs with fixed test keys, so that a client of an
// emulator or fake endpoint never reads the machine's AWS configuration
// and no test can authenticate against AWS itself.
func StaticCredentials() aws.CredentialsProvider {
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test", Source: "testenv"}, nil
	})
}
