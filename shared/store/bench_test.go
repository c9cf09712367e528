package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// benchRecords is a 10,000-summary namespace: 100 parents over 9,900
// leaves, a claim on every fifth leaf citing two chunks. Claims and chunks
// are kept fewer than summaries so that setup stays a few seconds.
func benchRecords() globalsearch.Records {
	var r globalsearch.Records
	for i := range 10_000 {
		s := globalsearch.Summary{ID: fmt.Sprintf("c%05d", i), Level: 1, Summary: fmt.Sprintf("summary %d of the benchmark corpus", i)}
		if i < 100 {
			s.Level = 0
		} else {
			s.ParentCommunityID = fmt.Sprintf("c%05d", i%100)
		}
		r.Summaries = append(r.Summaries, s)
		if i >= 100 && i%5 == 0 {
			a, b := fmt.Sprintf("k%05d-a", i), fmt.Sprintf("k%05d-b", i)
			r.Claims = append(r.Claims, globalsearch.Claim{ID: "cl" + s.ID, CommunityID: s.ID, Subject: "subject", Description: "description", SourceChunkIDs: []string{a, b}})
			r.Chunks = append(r.Chunks, globalsearch.Chunk{ID: a, Text: "chunk text " + a}, globalsearch.Chunk{ID: b, Text: "chunk text " + b})
		}
	}
	return r
}

// BenchmarkLoadNamespace reads what a search reads from the index: every
// summary, every claim and every cited chunk. requests/op should equal
// min-requests/op: one per query page and one per 100 chunks.
func BenchmarkLoadNamespace(b *testing.B) {
	ctx := context.Background()
	client := testenv.Minidyn(b)
	tables := store.Tables{Index: "bench-index"}
	require.NoError(b, store.CreateTables(ctx, client, tables))
	r := benchRecords()
	require.NoError(b, newIndex(b, client, tables.Index).ReplaceNamespace(ctx, "bench", r))
	// Pages of 1,000 items stand in for DynamoDB's 1 MB pages, which
	// minidyn does not make.
	const pageLimit = 1000
	fake := &fakeClient{next: client}
	s := newIndex(b, fake, tables.Index, store.WithQueryLimit(pageLimit))
	ids := citedChunkIDs(r)
	minimum := len(r.Summaries)/pageLimit + 1 + len(r.Claims)/pageLimit + 1 + ceilDiv(len(ids), 100)

	b.ReportAllocs()
	fake.Reset()
	for b.Loop() {
		sums, err := s.Summaries(ctx, "bench")
		require.NoError(b, err)
		claims, err := s.Claims(ctx, "bench")
		require.NoError(b, err)
		chunks, err := s.Chunks(ctx, "bench", ids)
		require.NoError(b, err)
		if len(sums) != len(r.Summaries) || len(claims) != len(r.Claims) || len(chunks) != len(r.Chunks) {
			b.Fatalf("read %d/%d/%d records, want %d/%d/%d", len(sums), len(claims), len(chunks), len(r.Summaries), len(r.Claims), len(r.Chunks))
		}
	}
	total := 0
	for _, n := range fake.Calls() {
		total += n
	}
	b.ReportMetric(float64(total)/float64(b.N), "requests/op")
	b.ReportMetric(float64(minimum), "min-requests/op")
}

// BenchmarkIngest replaces a namespace that already holds the same index
// (the common re-ingest): requests/op counts every DynamoDB call, and
// BatchWriteItem/op the write batches. The generated case reads the file
// named by GLOBALSEARCH_BENCH_INDEX (testdata/gen's output) when set.
func BenchmarkIngest(b *testing.B) {
	cases := []struct{ name, path string }{
		{"sample", filepath.Join("..", "..", "testdata", "sample-index.json")},
		{"generated", os.Getenv("GLOBALSEARCH_BENCH_INDEX")},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			if tc.path == "" {
				b.Skip("GLOBALSEARCH_BENCH_INDEX is not set")
			}
			f, err := indexfile.Load(tc.path)
			require.NoError(b, err)
			ctx := context.Background()
			client := testenv.Minidyn(b)
			tables := store.Tables{Index: "bench-index"}
			require.NoError(b, store.CreateTables(ctx, client, tables))
			fake := &fakeClient{next: client}
			s := newIndex(b, fake, tables.Index)
			require.NoError(b, s.ReplaceNamespace(ctx, f.Namespace, f.Records))
			fake.Reset()
			for b.Loop() {
				require.NoError(b, s.ReplaceNamespace(ctx, f.Namespace, f.Records))
			}
			total := 0
			for _, n := range fake.Calls() {
				total += n
			}
			b.ReportMetric(float64(total)/float64(b.N), "requests/op")
			b.ReportMetric(float64(fake.Calls()["BatchWriteItem"])/float64(b.N), "BatchWriteItem/op")
		})
	}
}
