package store

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// BenchmarkSavePlanUnits reports what saving the plan of an index costs in
// DynamoDB write units (1 KB of item each, rounded up per item) and S3
// requests, with the batch texts in the table and in the payload bucket
// (docs/contract.md#payloads-bucket). The index is BENCH_INDEX (make
// bench-plan sets its generated 10,000-summary index), else the sample.
func BenchmarkSavePlanUnits(b *testing.B) {
	path := os.Getenv("BENCH_INDEX")
	if path == "" {
		path = "../../testdata/sample-index.json"
	}
	f, err := indexfile.Load(path)
	require.NoError(b, err)
	idx := memstore.New()
	ctx := context.Background()
	require.NoError(b, idx.ReplaceNamespace(ctx, f.Namespace, f.Records))
	d := globalsearch.SpecDefaults
	d.MaxModelCalls = 1 << 30
	p, err := globalsearch.Request{Query: "What are the main themes?", Namespace: f.Namespace, Shuffle: new(bool)}.Params(d)
	require.NoError(b, err)
	e := &globalsearch.Engine{Index: idx, Runs: memstore.New()}
	plan, err := e.Plan(ctx, p)
	require.NoError(b, err)
	plan.RunID = "0123456789abcdef"
	plan.Params.QueryID = "q-0123456789abcdef01234567"

	for _, tc := range []struct {
		name     string
		payloads *Payloads
	}{
		{"texts in the table", nil},
		{"texts in the bucket", &Payloads{bucket: "b"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			runs := &Runs{Client: NewClient(nil), table: "runs", payloads: tc.payloads}
			var units, puts, textBytes, batchBytes, readUnits, planBytes int
			for b.Loop() {
				items, err := runs.encodePlan(plan)
				require.NoError(b, err)
				units, textBytes, batchBytes, readUnits = 0, 0, 0, 0
				for _, o := range items.objects {
					textBytes += int(o.body.size())
				}
				for _, w := range items.batches {
					n := itemSize(w.PutRequest.Item)
					units += (n + 1023) / 1024
					// What a map task's strongly consistent GetItem of it costs.
					readUnits += (n + 4095) / 4096
					batchBytes += n
				}
				planBytes = itemSize(items.plan)
				for _, it := range []item{items.plan, items.request, items.running} {
					units += 2 * ((itemSize(it) + 1023) / 1024) // in a transaction: twice
				}
				puts = len(items.objects)
			}
			b.ReportMetric(float64(len(plan.Batches)), "batches")
			b.ReportMetric(float64(units), "write-units/op")
			b.ReportMetric(float64(puts), "s3-puts/op")
			b.ReportMetric(float64(textBytes)/1e6, "s3-MB/op") // texts and batches
			b.ReportMetric(float64(batchBytes)/float64(max(len(plan.Batches), 1)), "batch-item-bytes")
			b.ReportMetric(float64(readUnits), "batch-read-units")
			b.ReportMetric(float64(planBytes), "plan-item-bytes")
		})
	}
}

// The deployment's largest MaxBatches is what the runs table's batch keys
// hold (six digits): a larger plan would be refused here as too large.
func TestMaxBatchesLimitIsTheKeyLayout(t *testing.T) {
	require.Equal(t, maxBatchIndex+1, workflow.MaxBatchesLimit)
}
