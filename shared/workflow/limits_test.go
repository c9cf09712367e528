package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/limits"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// The environment of a TestTimeToFirstMapCall run that
// BenchmarkPrepareTimeToFirstMapCall starts: how many summaries, and the
// file its figures go to.
const (
	envSummaries = "GLOBALSEARCH_LIMITS_SUMMARIES"
	envFigures   = "GLOBALSEARCH_LIMITS_FIGURES"
	// envPayloads, when set, saves the batch texts in the payload bucket
	// (docs/contract.md#payloads-bucket) instead of the runs table.
	envPayloads = "GLOBALSEARCH_LIMITS_PAYLOADS"
)

// firstMapCall is what one simulated search measured.
type firstMapCall struct {
	Summaries, Batches     int
	Seconds                float64 // simulated, prepare's start to the first map model call
	WriteUnits, ReadUnits  float64 // charged to the runs and index tables together
	Throttled, Unprocessed int
	PrepareAttempts        int // the state machine retries a throttled prepare
	// The components the simulated clock does not see, in seconds
	// (docs/scale.md#first-map-call-components), and Total, Seconds with
	// them: prepare's CPU, the AWS SDK's share included (its first,
	// heap-growing run), scaled to the vCPU share of MemoryMB (beyond one
	// vCPU, divided by the Speedup a playback on Cores got), prepare's
	// bootstrap init, the Step Functions transitions to the first map
	// invocation, the map bootstrap's init (the first iteration's cold
	// start) and the map task's CPU up to its model call, scaled to
	// MapMemoryMB. OwnCPU is the part of PrepareCPU in the project's own
	// functions, for the breakdown only.
	MemoryMB, MapMemoryMB, Cores                   int
	Speedup                                        float64
	PrepareCPU, OwnCPU, Init, Transitions, MapInit float64
	MapCPU                                         float64
	Total                                          float64
	// PreparePeakMB is the most memory prepare's runtime held, against
	// MemoryMB.
	PreparePeakMB float64
}

// retrier is one Retry of a Task state in the ASL.
type retrier struct {
	ErrorEquals                  []string
	IntervalSeconds, MaxAttempts int
	BackoffRate                  float64
	MaxDelaySeconds              int
}

// prepareWithRetry invokes prepare as the state machine does: a
// ThrottledError is retried by the Prepare state's Retry in
// statemachine/globalsearch.asl.json (full jitter), on the bubble's
// clock.
func prepareWithRetry(ctx context.Context, t *testing.T, h *workflow.Handlers) (workflow.PrepareOutput, int, error) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "statemachine", "globalsearch.asl.json"))
	require.NoError(t, err)
	var asl struct {
		States map[string]struct{ Retry []retrier }
	}
	require.NoError(t, json.Unmarshal(raw, &asl))
	var r retrier
	for _, c := range asl.States["Prepare"].Retry {
		if slices.Contains(c.ErrorEquals, "ThrottledError") {
			r = c
		}
	}
	require.Positive(t, r.MaxAttempts, "the Prepare state retries ThrottledError")
	in := workflow.PrepareInput{Request: measuredRequest("exec"), ExecutionName: "exec"}
	for attempt := 1; ; attempt++ {
		out, err := h.Prepare(ctx, in)
		if err == nil || workflow.ErrorType(err) != "ThrottledError" || attempt > r.MaxAttempts {
			return out, attempt, err
		}
		t.Logf("prepare attempt %d: %v", attempt, err)
		delay := float64(r.IntervalSeconds) * math.Pow(r.BackoffRate, float64(attempt-1))
		if r.MaxDelaySeconds > 0 {
			delay = min(delay, float64(r.MaxDelaySeconds))
		}
		time.Sleep(time.Duration(rand.Float64() * delay * float64(time.Second)))
	}
}

// generatedFile writes testdata/gen's index of n leaf summaries (and
// n/50 roots) and returns its path.
func generatedFile(t testing.TB, n int) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), fmt.Sprintf("index-%d.json", n))
	cmd := exec.Command("go", "run", "./testdata/gen", "--summaries", strconv.Itoa(n), "--out", out)
	cmd.Dir = filepath.Join("..", "..")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	return out
}

// firstCallModel answers every map batch and notes the simulated time of
// its first call and the batch it was given.
type firstCallModel struct {
	once    sync.Once
	at      time.Time
	content string
}

func (m *firstCallModel) Complete(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	m.once.Do(func() { m.at, m.content = time.Now(), req.Prompt })
	return globalsearch.ModelResponse{Text: `{"answer":"partial answer","usefulness":50}`}, nil
}

// simulate runs, inside a synctest bubble, prepare and then the map task of
// batch 0 as the functions do (workflow.Handlers over the store), against
// minidyn behind the limits double at AWS's rates, with the index ingested
// beforehand without limits. minidyn serves each partition from its own
// server (testenv.PartitionedMinidynHandler): one server's cost grows with
// the square of its table's items, which at 100,000 summaries takes hours,
// and the limits double sees the same requests either way. It returns the
// simulated time from prepare's start to the map task's model call, and
// checks that the plan saved reads back whole.
func simulate(t *testing.T, n int, f indexfile.File, payloads bool) firstMapCall {
	var got firstMapCall
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		dynamo := testenv.PartitionedMinidynHandler(limits.QueryPartition)
		h := limits.Services(dynamo, limits.NewMemoryS3())
		tables := store.Tables{Index: "index", Runs: "runs"}
		free := limits.New(h, limits.Limits{}).DynamoDB()
		require.NoError(t, store.CreateTables(ctx, free, tables))
		ingest, err := store.NewIndex(store.NewClient(free), tables.Index)
		require.NoError(t, err)
		require.NoError(t, ingest.ReplaceNamespace(ctx, f.Namespace, f.Records))

		d := limits.New(h, limits.AWS)
		c := store.NewClient(d.DynamoDB())
		idx, err := store.NewIndex(c, tables.Index)
		require.NoError(t, err)
		runs, err := store.NewRuns(c, tables.Runs)
		require.NoError(t, err)
		// The Distributed Map's items are in the bucket either way; the
		// batch texts only with payloads.
		bucket, err := store.NewPayloads(d.S3(), "payloads")
		require.NoError(t, err)
		if payloads {
			runs = runs.WithPayloads(bucket)
		}
		defaults := globalsearch.SpecDefaults
		defaults.Namespace = f.Namespace
		defaults.MaxModelCalls = globalsearch.MostModelCalls(workflow.DefaultMaxBatches)
		prepare := &workflow.Handlers{Engine: &globalsearch.Engine{Index: idx, Runs: runs, MaxBatches: workflow.DefaultMaxBatches}, Defaults: defaults, Items: bucket}
		model := &firstCallModel{}
		mapper := &workflow.Handlers{Engine: &globalsearch.Engine{Model: model, Runs: runs}}

		start := time.Now()
		out, attempts, err := prepareWithRetry(ctx, t, prepare)
		require.NoError(t, err, "after %d attempts", attempts)
		_, err = mapper.Map(ctx, workflow.MapInput{QueryID: out.QueryID, RunID: out.RunID, BatchIndex: 0, Attempt: 1})
		require.NoError(t, err)
		require.False(t, model.at.IsZero(), "the map task called the model")
		s := d.Stats() // what prepare and the map task took, not the check below

		plan, err := runs.Plan(ctx, out.QueryID)
		require.NoError(t, err)
		require.Len(t, plan.Batches, out.BatchCount, "every batch saved")
		assert.Contains(t, model.content, plan.Batches[0].Content, "the map call got batch 0 as saved")
		got = firstMapCall{Summaries: n, Batches: out.BatchCount, Seconds: model.at.Sub(start).Seconds(),
			WriteUnits: s.WriteUnits[tables.Runs], ReadUnits: s.ReadUnits[tables.Index] + s.ReadUnits[tables.Runs],
			Throttled: s.Throttled, Unprocessed: s.Unprocessed, PrepareAttempts: attempts}
	})
	return got
}

// TestTimeToFirstMapCall: prepare at DynamoDB's partition rates saves a
// whole plan, and the first map call comes no sooner than the rate
// allows the plan's write units (less one second of burst) to be written
// (docs/contract.md#limits-model); with the batches in the bucket, within
// 2 s simulated. It simulates 1,000 summaries, or
// $GLOBALSEARCH_LIMITS_SUMMARIES, and writes its figures as JSON to
// $GLOBALSEARCH_LIMITS_FIGURES when set (the benchmark below reads them).
func TestTimeToFirstMapCall(t *testing.T) {
	n := 1000
	if v := os.Getenv(envSummaries); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, envSummaries)
	}
	path := generatedFile(t, n)
	mb := prepareMemory(t)
	d := deployedCPU(t, path, prepareCores(mb))
	f, err := indexfile.Load(path)
	require.NoError(t, err)
	own, _, _ := ownCPU(t, f)
	got := simulate(t, n, f, os.Getenv(envPayloads) != "")
	got.MemoryMB, got.MapMemoryMB = mb, templateMemoryMB(t, "MapFunction")
	got.Cores, got.Speedup = d.Cores, d.speedup()
	// The own functions are one goroutine's work: a second core does not speed them up.
	got.PrepareCPU, got.OwnCPU = prepareSeconds(d.PrepareFirst, d, mb), own.Seconds()/vCPUShare(mb)
	got.MapCPU = d.MapTask.Seconds() / vCPUShare(got.MapMemoryMB)
	got.PreparePeakMB = float64(d.PeakBytes) / (1 << 20)
	got.Init, got.Transitions, got.MapInit = prepareInit.Seconds(), sfnTransitions.Seconds(), mapInit.Seconds()
	got.Total = got.Seconds + got.PrepareCPU + got.Init + got.Transitions + got.MapInit + got.MapCPU
	t.Logf("%+v", got)
	t.Logf("to the first map call: %.2f s = %.2f s simulated stores + %.2f s prepare's CPU on %d MB, cores: %d (%.2f s of it the project's own functions) + %.3f s prepare's init + %.2f s transitions + %.3f s map's init + %.3f s map's CPU on %d MB; prepare's memory peaked at %.0f MB",
		got.Total, got.Seconds, got.PrepareCPU, got.MemoryMB, got.Cores, got.OwnCPU, got.Init, got.Transitions, got.MapInit, got.MapCPU, got.MapMemoryMB, got.PreparePeakMB)
	if got.Cores > 1 {
		t.Logf("  prepare played back: %v on one core, %v on %d: %.2fx", d.PlayedOne, d.PlayedMany, d.Cores, got.Speedup)
	}
	burst := limits.AWS.WriteUnits * limits.AWS.Burst.Seconds()
	assert.GreaterOrEqual(t, got.Seconds, (got.WriteUnits-burst)/limits.AWS.WriteUnits, "no faster than one partition's write rate")
	assert.Positive(t, got.Batches)
	assert.Less(t, got.PreparePeakMB, float64(got.MemoryMB), "prepare fits its memory")
	if os.Getenv(envPayloads) != "" {
		// docs/contract.md#payloads-bucket: no item per batch, and the
		// namespace read eventually consistent.
		assert.Less(t, got.WriteUnits, float64(got.Batches), "no write per batch")
		// The targets: 2 s up to 10,000 summaries, 10 s at 100,000.
		target := 2.0
		if n > 10_000 {
			target = 10
		}
		assert.LessOrEqual(t, got.Total, target, "prepare's target for %d summaries, every component counted", n)
	}
	if path := os.Getenv(envFigures); path != "" {
		raw, err := json.Marshal(got)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, raw, 0o644))
	}
}

// BenchmarkPrepareTimeToFirstMapCall reports prepare's simulated time to
// the first map call at 1,000 and 10,000 summaries (sim-s/op), with the
// write units the save took and the throttled calls. A synctest bubble
// needs a *testing.T, so each run is TestTimeToFirstMapCall in a child
// process of this test binary; the figures are simulated, the benchmark's
// own ns/op is only what the simulation cost.
func BenchmarkPrepareTimeToFirstMapCall(b *testing.B) {
	for _, tc := range []struct {
		n        int
		payloads bool
	}{{1000, false}, {10_000, false}, {1000, true}, {10_000, true}} {
		where := "table"
		if tc.payloads {
			where = "bucket"
		}
		b.Run(fmt.Sprintf("summaries=%d/texts=%s", tc.n, where), func(b *testing.B) {
			var got firstMapCall
			for b.Loop() {
				path := filepath.Join(b.TempDir(), "figures.json")
				cmd := exec.Command(os.Args[0], "-test.run=^TestTimeToFirstMapCall$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", envSummaries, tc.n), envFigures+"="+path, envPayloads+"=")
				if tc.payloads {
					cmd.Env = append(cmd.Env, envPayloads+"=1")
				}
				out, err := cmd.CombinedOutput()
				require.NoError(b, err, "%s", out)
				raw, err := os.ReadFile(path)
				require.NoError(b, err)
				require.NoError(b, json.Unmarshal(raw, &got))
			}
			b.ReportMetric(got.Seconds, "sim-s/op")
			b.ReportMetric(got.PrepareCPU, "preparecpu-s")
			b.ReportMetric(got.Init+got.Transitions+got.MapInit+got.MapCPU, "init+sfn+map-s")
			b.ReportMetric(got.Total, "total-s")
			b.ReportMetric(float64(got.Batches), "batches")
			b.ReportMetric(got.WriteUnits, "write-units/op")
			b.ReportMetric(float64(got.Throttled), "throttled/op")
		})
	}
}
