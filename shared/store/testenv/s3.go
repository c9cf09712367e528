package testenv

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3Client returns an S3 client for an emulator at endpoint (moto), with
// the static credentials and region of DynamoDBClient. Path-style
// addressing, as an emulator on a loopback port has no bucket subdomains.
func S3Client(t testing.TB, endpoint string) *s3.Client {
	t.Helper()
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  StaticCredentials(),
		UsePathStyle: true,
	})
}

var bucketSeq atomic.Int64

// NewBucket creates a fresh bucket on client's emulator and returns its
// name, so tests can share one emulator.
func NewBucket(t testing.TB, client *s3.Client) string {
	t.Helper()
	name := fmt.Sprintf("payloads-%d", bucketSeq.Add(1))
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}
