package globalsearch_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// quotaFigures are one simulation's figures, in simulated seconds.
type quotaFigures struct {
	Batches, TPM int
	Ideal        float64 // bedrockQuota.bound of auto's calls: the shortest any schedule could take
	RefillBound  float64 // bedrockQuota.refillBound, the looser floor the figures were held to before
	Auto         float64 // map makespan with --concurrency auto
	Failed       int     // batches auto failed
	Refused      int
	MostRefusals int // of one batch; past gs.ThrottleRetries a refusal spends an attempt
	Peak, Final  int
	// Deployed figures (quota_deployed_test.go): the map at a fixed
	// concurrency with the SDK's and the state machine's retries, at 4 (the
	// default mapConcurrency) and at what prepare sizes from the quota
	// when the template is given it (SizedConcurrency); the makespan runs
	// to the last call's end or refusal.
	Fixed4, Sized                float64
	Fixed4Failed, SizedFailed    int
	Fixed4Refused, SizedRefused  int
	SizedConcurrency             int
	SettledTokens                int
	EstimatedInput, CountedInput int // the planner's estimate of auto's map input, against the double's o200k count
}

const (
	quotaPerMinute = 400_000
	// quotaRPM binds before the tokens do only past 8 calls in flight
	// (6 a minute each at 10 s a call).
	quotaRPM       = 50
	quotaOutWeight = 5 // Claude 4-class output burndown
	quotaLatency   = 10 * time.Second
	envQuotaBatch  = "GLOBALSEARCH_QUOTA_BATCHES"
	envQuotaTPM    = "GLOBALSEARCH_QUOTA_TPM"
	envQuotaOut    = "GLOBALSEARCH_QUOTA_FIGURES"
)

// simulateQuota runs a whole search of n batches of ~7,000 tokens (one
// summary each) against a bedrockQuota of perMinute tokens and quotaRPM
// requests a minute and 10 s calls under AutoConcurrency, and, when
// deployed, as the deployed map runs it (deployedMap) at 4 and at the
// concurrency prepare sizes from the quota.
func simulateQuota(t *testing.T, n, perMinute int, deployed bool) quotaFigures {
	var got quotaFigures
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(3, 3))
		var r gs.Records
		for i := range n {
			// ~6,700 estimated tokens, ~7,100 with the prompt: two never share a batch.
			r.Summaries = append(r.Summaries, gs.Summary{ID: fmt.Sprintf("c%04d", i), Level: 0, Summary: benchText(rng, 3500)})
		}
		store := memstore.New()
		require.NoError(t, store.ReplaceNamespace(ctx, "bench", r))
		newDouble := func() *bedrockQuota {
			return &bedrockQuota{perMinute: float64(perMinute), requestsPerMinute: quotaRPM, outputWeight: quotaOutWeight,
				latency: quotaLatency, refusals: map[string]int{}}
		}
		auto := newDouble()
		e := &gs.Engine{Index: store, Runs: store, Model: auto, AutoConcurrency: &gs.AutoConcurrency{}}
		res, err := e.Search(ctx, benchParams(0, "quota-auto"))
		require.NoError(t, err)
		require.Equal(t, n, res.Diagnostics.BatchCount, "one summary a batch")
		report := res.Diagnostics.Map.AutoConcurrency
		require.NotNil(t, report)
		got = quotaFigures{
			Batches: n, TPM: perMinute, Ideal: auto.bound(), RefillBound: auto.refillBound(),
			Auto: auto.end.Sub(auto.first).Seconds(), Failed: res.FailedMapBatches,
			Refused: report.Throttled, Peak: report.Peak, Final: report.Final, SettledTokens: auto.settled,
			EstimatedInput: res.Diagnostics.Usage.Map.EstimatedInputTokens, CountedInput: res.Diagnostics.Map.InputTokens,
		}
		for _, n := range auto.refusals {
			got.MostRefusals = max(got.MostRefusals, n)
		}
		if !deployed {
			return
		}
		got.SizedConcurrency = gs.SizeMap(gs.Quota{TokensPerMinute: perMinute, RequestsPerMinute: quotaRPM},
			gs.MapLoad{InputTokens: batchesOf(n, got.EstimatedInput/n), OutputReserve: 512, OutputWeight: quotaOutWeight},
			gs.MapCaps{Default: 4, Max: 32}).MapConcurrency
		run := func(id string, concurrency int) (makespan float64, failed, refused int) {
			double := newDouble()
			e := &gs.Engine{Index: store, Runs: store, Model: newDeployedMap(double)}
			p := benchParams(0, id)
			p.MapConcurrency = concurrency
			res, _ := e.Search(ctx, p) // every batch failed is a figure, not an error here
			for _, n := range double.refusals {
				refused += n
			}
			return double.last.Sub(double.first).Seconds(), res.FailedMapBatches, refused
		}
		got.Fixed4, got.Fixed4Failed, got.Fixed4Refused = run("quota-fixed4", 4)
		got.Sized, got.SizedFailed, got.SizedRefused = run("quota-sized", got.SizedConcurrency)
	})
	return got
}

// quotaSweep is every run size and quota auto is held to: the small runs,
// where the empty buckets' start is most of the run, and the 1,226 batches
// of the 10,000-summary index's level 0.
func quotaSweep() []struct{ n, perMinute int } {
	var out []struct{ n, perMinute int }
	for _, perMinute := range []int{quotaPerMinute, 100_000} {
		for _, n := range []int{5, 6, 8, 10, 13, 16, 20, 30, 50, 1226} {
			out = append(out, struct{ n, perMinute int }{n, perMinute})
		}
	}
	return out
}

// TestConcurrencyAutoMakespan: against the Bedrock-strict double, auto's
// map makespan is within 1.15x of the shortest any schedule could take at
// every size of the sweep, no batch fails, and no batch is refused more
// than ThrottleRetries times (docs/contract.md#auto-concurrency,
// docs/limits.md#bedrock-quota-double). Simulated seconds, not wall time.
func TestConcurrencyAutoMakespan(t *testing.T) {
	for _, tc := range quotaSweep() {
		t.Run(fmt.Sprintf("batches=%d/tpm=%d", tc.n, tc.perMinute), func(t *testing.T) {
			if tc.n > 100 && testing.Short() {
				t.Skip("-short: the 1,226-batch runs take seconds each")
			}
			got := simulateQuota(t, tc.n, tc.perMinute, false)
			t.Logf("auto %.2fx the bound (%.2fx the refill bound): %+v", got.Auto/got.Ideal, got.Auto/got.RefillBound, got)
			assert.Zero(t, got.Failed, "no batch failed")
			assert.LessOrEqual(t, got.MostRefusals, gs.ThrottleRetries, "no refusal spent an attempt")
			// The bound holds every schedule: a makespan under it means the
			// double admitted more than its quota, or the bound is wrong.
			assert.GreaterOrEqual(t, got.Auto, got.Ideal, "no schedule beats the quota's bound")
			assert.GreaterOrEqual(t, got.Ideal, got.RefillBound-1e-9, "the oracle's schedule refills the quota too")
			assert.LessOrEqual(t, got.Auto, 1.15*got.Ideal, "auto within 1.15x of the quota's bound")
			assert.NotEqual(t, got.EstimatedInput, got.CountedInput, "the double counts with another tokenizer than the planner's")
		})
	}
}

// TestDeployedMapFailsNoBatch: the deployed map, one call per invocation
// at the Map's fixed concurrency with the SDK's quota-waiting retries and
// the state machine's Retry, fails no batch against the Bedrock-strict
// double's empty quota, at the default 4 and at what prepare sizes from the
// quota (docs/limits.md#deployed-map). The SDK's default 4 attempts
// failed 3 of 5 batches at 100k tokens a minute. The 1,226-batch runs,
// where the SDK's retry quota drained (176 failed), take minutes under the
// race detector: BenchmarkConcurrencyAuto measures them, and
// TestQuotaWaitHasNoRetryQuota (shared/llm/bedrock) pins that the deployed
// client has no retry quota to drain. Simulated seconds.
func TestDeployedMapFailsNoBatch(t *testing.T) {
	for _, perMinute := range []int{quotaPerMinute, 100_000} {
		for _, n := range []int{5, 13, 50} {
			t.Run(fmt.Sprintf("batches=%d/tpm=%d", n, perMinute), func(t *testing.T) {
				got := simulateQuota(t, n, perMinute, true)
				t.Logf("fixed 4 %.2fx the bound, sized (%d) %.2fx: %+v", got.Fixed4/got.Ideal, got.SizedConcurrency, got.Sized/got.Ideal, got)
				assert.Zero(t, got.Fixed4Failed, "no batch failed at 4")
				assert.Zero(t, got.SizedFailed, "no batch failed at the sized concurrency")
				assert.GreaterOrEqual(t, got.Fixed4, got.Ideal, "no schedule beats the quota's bound")
				assert.GreaterOrEqual(t, got.Sized, got.Ideal, "no schedule beats the quota's bound")
			})
		}
	}
}

// TestQuotaFigures writes one case's figures, auto's and the deployed
// map's, as JSON to $GLOBALSEARCH_QUOTA_FIGURES for the benchmark below:
// $GLOBALSEARCH_QUOTA_BATCHES batches (10 unless set) at
// $GLOBALSEARCH_QUOTA_TPM tokens a minute (400k unless set). Without the
// first it does nothing.
func TestQuotaFigures(t *testing.T) {
	path := os.Getenv(envQuotaOut)
	if path == "" {
		t.Skip("set " + envQuotaOut + " (BenchmarkConcurrencyAuto does)")
	}
	n, perMinute := 10, quotaPerMinute
	for name, v := range map[string]*int{envQuotaBatch: &n, envQuotaTPM: &perMinute} {
		if s := os.Getenv(name); s != "" {
			var err error
			*v, err = strconv.Atoi(s)
			require.NoError(t, err, name)
		}
	}
	got := simulateQuota(t, n, perMinute, true)
	t.Logf("%+v", got)
	raw, err := json.Marshal(got)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw, 0o644))
}

// BenchmarkConcurrencyAuto reports, at every case of quotaSweep, auto's
// map makespan and the deployed map's (at 4, and at the concurrency
// prepare sizes from the quota) against the shortest any schedule could
// take, with their failed batches. A synctest bubble needs a *testing.T,
// so each case is TestQuotaFigures in a child process of this test binary;
// the figures are simulated, ns/op is only what the simulation cost.
func BenchmarkConcurrencyAuto(b *testing.B) {
	for _, tc := range quotaSweep() {
		b.Run(fmt.Sprintf("batches=%d/tpm=%d", tc.n, tc.perMinute), func(b *testing.B) {
			var got quotaFigures
			for b.Loop() {
				path := filepath.Join(b.TempDir(), "figures.json")
				cmd := exec.Command(os.Args[0], "-test.run=^TestQuotaFigures$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", envQuotaBatch, tc.n), fmt.Sprintf("%s=%d", envQuotaTPM, tc.perMinute), envQuotaOut+"="+path)
				out, err := cmd.CombinedOutput()
				require.NoError(b, err, "%s", out)
				raw, err := os.ReadFile(path)
				require.NoError(b, err)
				require.NoError(b, json.Unmarshal(raw, &got))
			}
			for unit, v := range map[string]float64{
				"ideal-sim-s": got.Ideal, "refill-bound-sim-s": got.RefillBound,
				"auto/ideal": got.Auto / got.Ideal, "auto-sim-s": got.Auto, "failed": float64(got.Failed),
				"refused": float64(got.Refused), "most-refusals": float64(got.MostRefusals), "final": float64(got.Final),
				"fixed4/ideal": got.Fixed4 / got.Ideal, "fixed4-failed": float64(got.Fixed4Failed), "fixed4-refused": float64(got.Fixed4Refused),
				"sized": float64(got.SizedConcurrency), "sized/ideal": got.Sized / got.Ideal, "sized-failed": float64(got.SizedFailed),
			} {
				b.ReportMetric(v, unit)
			}
		})
	}
}
