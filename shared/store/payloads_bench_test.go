package store_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// The two layouts a run's batch texts could have, measured on
// moto with the 10,000-summary plan's shape (1,226 batches, about 35 MB):
// one object per save read by range (what the store does,
// docs/contract.md#payloads-bucket), or one object per batch. Each reports
// the time to save a plan (prepare's critical path) and the S3 requests it
// makes; the map reads are one GetObject per batch either way.
const (
	benchBatches   = 1226
	benchBatchText = 28_500
	// benchPutConcurrency is what a per-batch layout would run at: more
	// PutObjects in flight than the store's DynamoDB writes, since S3
	// allows 3,500 a second per prefix.
	benchPutConcurrency = 32
)

func benchTexts() []string {
	texts := make([]string, benchBatches)
	for i := range texts {
		texts[i] = strings.Repeat(fmt.Sprintf("[Community %05d] summary text ", i), benchBatchText/28)[:benchBatchText]
	}
	return texts
}

func BenchmarkPayloadLayouts(b *testing.B) {
	ctx := context.Background()
	client := testenv.S3Client(b, testenv.Moto(b, testenv.MotoOptions{}))
	bucket := testenv.NewBucket(b, client)
	texts := benchTexts()
	put := func(key string, body []byte) error {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)})
		return err
	}
	get := func(key, rng string) error {
		in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
		if rng != "" {
			in.Range = aws.String(rng)
		}
		out, err := client.GetObject(ctx, in)
		if err != nil {
			return err
		}
		defer func() { _ = out.Body.Close() }()
		_, err = io.Copy(io.Discard, out.Body)
		return err
	}
	b.Run("save/one object", func(b *testing.B) {
		body := []byte(strings.Join(texts, ""))
		for b.Loop() {
			require.NoError(b, put("runs/q/r1/texts", body))
		}
		b.ReportMetric(1, "requests/op")
	})
	b.Run("save/one object per batch", func(b *testing.B) {
		for b.Loop() {
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(benchPutConcurrency)
			for i, text := range texts {
				g.Go(func() error {
					if gctx.Err() != nil {
						return gctx.Err()
					}
					return put(fmt.Sprintf("runs/q/r2/batch-%06d", i), []byte(text))
				})
			}
			require.NoError(b, g.Wait())
		}
		b.ReportMetric(benchBatches, "requests/op")
	})
	// A map task's read: one request either way; a range of the one object
	// against a whole small object.
	b.Run("map read/range of one object", func(b *testing.B) {
		require.NoError(b, put("runs/q/r1/texts", []byte(strings.Join(texts, ""))))
		i := 0
		for b.Loop() {
			off := (i % benchBatches) * benchBatchText
			require.NoError(b, get("runs/q/r1/texts", fmt.Sprintf("bytes=%d-%d", off, off+benchBatchText-1)))
			i++
		}
	})
	b.Run("map read/object per batch", func(b *testing.B) {
		require.NoError(b, put("runs/q/r2/batch-000000", []byte(texts[0])))
		for b.Loop() {
			require.NoError(b, get("runs/q/r2/batch-000000", ""))
		}
	})
}
