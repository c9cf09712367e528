package globalsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens/bpe"
)

// bedrockQuota is a quota double as strict as Bedrock's on-demand quotas
// (docs/limits.md#bedrock-quota-double): a tokens-per-minute and a
// requests-per-minute bucket, each holding at most one minute of quota,
// refilling continuously and starting empty (no initial burst). A call is
// admitted only when both buckets cover it: one request, and its input
// counted with o200k (not the planner's estimate, so the two disagree)
// plus maxTokens weighed by the model family's output burndown (5 for
// Claude 4-class models). A refused call is refused for load at once and
// takes nothing. When the call ends, the reservation settles to what it
// used: input plus the output it produced, weighed the same, and the rest
// goes back to the bucket. An admitted call takes latency. Time is the
// bubble's simulated time.
type bedrockQuota struct {
	perMinute, requestsPerMinute float64
	outputWeight                 int
	latency                      time.Duration

	mu               sync.Mutex
	tokens, requests float64 // the buckets
	refilled         time.Time
	first, end       time.Time
	settled          int // quota the calls used, once settled
	calls            int
	refusals         map[string]int // by batch content
}

// quotaOutputTokens is what every map answer of the double produces.
const quotaOutputTokens = 12

func (m *bedrockQuota) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return gs.ModelResponse{Text: `{"answer":"Global trend"}`}, nil
	}
	input := bpe.O200k.Count(req.SystemPrompt()) + bpe.O200k.Count(req.Prompt)
	reserve := input + m.outputWeight*req.MaxTokens
	m.mu.Lock()
	now := time.Now()
	if m.first.IsZero() {
		m.first, m.refilled = now, now // empty buckets: nothing banked before the run
	}
	minutes := now.Sub(m.refilled).Minutes()
	m.tokens = min(m.perMinute, m.tokens+minutes*m.perMinute)
	m.requests = min(m.requestsPerMinute, m.requests+minutes*m.requestsPerMinute)
	m.refilled = now
	if m.tokens < float64(reserve) || m.requests < 1 {
		m.refusals[req.Content]++
		m.mu.Unlock()
		return gs.ModelResponse{}, gs.Errorf(gs.KindThrottled, "tokens or requests per minute spent")
	}
	m.tokens -= float64(reserve)
	m.requests--
	m.calls++
	m.mu.Unlock()
	if err := sleepCtx(ctx, m.latency); err != nil {
		return gs.ModelResponse{}, err
	}
	used := input + m.outputWeight*quotaOutputTokens
	m.mu.Lock()
	m.tokens = min(m.perMinute, m.tokens+float64(reserve-used))
	m.settled += used
	if now := time.Now(); now.After(m.end) {
		m.end = now
	}
	m.mu.Unlock()
	return gs.ModelResponse{Text: `{"answer":"Cross-sector trend","usefulness":72}`, InputTokens: input, OutputTokens: quotaOutputTokens}, nil
}

// bound is the shortest map stage any schedule could have under m's
// quota: empty buckets must have refilled every settled token and every
// request before the last call is admitted, and that call then takes its
// latency.
func (m *bedrockQuota) bound() float64 {
	refill := max(float64(m.settled)/m.perMinute, float64(m.calls)/m.requestsPerMinute) * 60
	return refill + m.latency.Seconds()
}

// quotaFigures are one simulation's figures, in simulated seconds.
type quotaFigures struct {
	Batches        int
	Ideal          float64 // bedrockQuota.bound of auto's calls
	Auto, Fixed4   float64 // map makespan with --concurrency auto and at 4 (the deployed default)
	Failed         int     // batches auto failed
	Fixed4Failed   int     // batches the fixed 4 failed (none under 400k a minute)
	Refused        int
	MostRefusals   int // of one batch; past gs.ThrottleRetries a refusal spends an attempt
	Peak, Final    int
	SettledTokens  int
	EstimatedInput int // the planner's estimate of auto's map input, against the double's o200k count
	CountedInput   int
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
// summary each) against a tpmModel of perMinute tokens a minute and 10 s
// calls, once under AutoConcurrency and once at the fixed concurrency 4.
func simulateQuota(t *testing.T, n, perMinute int) quotaFigures {
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
		search := func(id string, auto bool) (*bedrockQuota, gs.Result) {
			model := &bedrockQuota{perMinute: float64(perMinute), requestsPerMinute: quotaRPM, outputWeight: quotaOutWeight,
				latency: quotaLatency, refusals: map[string]int{}}
			e := &gs.Engine{Index: store, Runs: store, Model: model}
			if auto {
				e.AutoConcurrency = &gs.AutoConcurrency{}
			}
			res, err := e.Search(ctx, benchParams(0, id))
			if auto {
				require.NoError(t, err)
			}
			require.Equal(t, n, res.Diagnostics.BatchCount, "one summary a batch")
			return model, res
		}
		auto, res := search("quota-auto", true)
		fixed, fixedRes := search("quota-fixed", false)
		report := res.Diagnostics.Map.AutoConcurrency
		require.NotNil(t, report)
		got = quotaFigures{
			Batches: n, Ideal: auto.bound(),
			Auto: auto.end.Sub(auto.first).Seconds(), Fixed4: fixed.end.Sub(fixed.first).Seconds(),
			Failed: res.FailedMapBatches, Refused: report.Throttled, Peak: report.Peak, Final: report.Final,
			SettledTokens: auto.settled, Fixed4Failed: fixedRes.FailedMapBatches,
			EstimatedInput: res.Diagnostics.Usage.Map.EstimatedInputTokens, CountedInput: res.Diagnostics.Map.InputTokens,
		}
		if fixed.end.IsZero() {
			got.Fixed4 = 0 // no call of the fixed 4 was admitted
		}
		for _, n := range auto.refusals {
			got.MostRefusals = max(got.MostRefusals, n)
		}
	})
	return got
}

// TestConcurrencyAutoMakespan: under a tokens-per-minute quota, auto's map
// makespan is within 1.15x of the quota-bound ideal and no batch fails
// (docs/contract.md#auto-concurrency). It simulates 10 batches (the size
// of the Christmas Carol index), or $GLOBALSEARCH_QUOTA_BATCHES, at 400k
// tokens a minute, or $GLOBALSEARCH_QUOTA_TPM, and writes its figures as JSON to $GLOBALSEARCH_QUOTA_FIGURES when set (the
// benchmark below reads them).
func TestConcurrencyAutoMakespan(t *testing.T) {
	n, perMinute := 10, quotaPerMinute
	for name, v := range map[string]*int{envQuotaBatch: &n, envQuotaTPM: &perMinute} {
		if s := os.Getenv(name); s != "" {
			var err error
			*v, err = strconv.Atoi(s)
			require.NoError(t, err, name)
		}
	}
	got := simulateQuota(t, n, perMinute)
	t.Logf("%+v", got)
	assert.Zero(t, got.Failed, "no batch failed")
	// The bound holds every schedule: a makespan under it means the
	// double admitted more than its quota.
	assert.GreaterOrEqual(t, got.Auto, got.Ideal, "no schedule beats the quota's bound")
	t.Logf("auto %.2fx the bound, fixed 4 %d of %d batches failed", got.Auto/got.Ideal, got.Fixed4Failed, got.Batches)
	// docs/limits.md#bedrock-quota-double: simulated seconds, not wall time.
	assert.LessOrEqual(t, got.Auto, 1.15*got.Ideal, "auto within 1.15x of the quota's bound")
	assert.NotEqual(t, got.EstimatedInput, got.CountedInput, "the double counts with another tokenizer than the planner's")
	if path := os.Getenv(envQuotaOut); path != "" {
		raw, err := json.Marshal(got)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, raw, 0o644))
	}
}

// BenchmarkConcurrencyAuto reports auto's and the fixed 4's map makespans
// against the quota-bound ideal at 10 and 1,226 batches under 400k tokens
// a minute, and at 1,226 under 100k, where 4 in flight are already too
// many and the fixed 4 fails batches. A synctest
// bubble needs a *testing.T, so each run is TestConcurrencyAutoMakespan in
// a child process of this test binary; the figures are simulated, ns/op is
// only what the simulation cost.
func BenchmarkConcurrencyAuto(b *testing.B) {
	for _, tc := range []struct{ n, perMinute int }{{10, quotaPerMinute}, {1226, quotaPerMinute}, {1226, 100_000}} {
		b.Run(fmt.Sprintf("batches=%d/tpm=%d", tc.n, tc.perMinute), func(b *testing.B) {
			var got quotaFigures
			for b.Loop() {
				path := filepath.Join(b.TempDir(), "figures.json")
				cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrencyAutoMakespan$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", envQuotaBatch, tc.n), fmt.Sprintf("%s=%d", envQuotaTPM, tc.perMinute), envQuotaOut+"="+path)
				out, err := cmd.CombinedOutput()
				require.NoError(b, err, "%s", out)
				raw, err := os.ReadFile(path)
				require.NoError(b, err)
				require.NoError(b, json.Unmarshal(raw, &got))
			}
			b.ReportMetric(got.Auto/got.Ideal, "auto/ideal")
			b.ReportMetric(got.Fixed4/got.Ideal, "fixed4/ideal")
			b.ReportMetric(got.Auto, "auto-sim-s")
			b.ReportMetric(got.Fixed4, "fixed4-sim-s")
			b.ReportMetric(got.Ideal, "ideal-sim-s")
			b.ReportMetric(float64(got.Failed), "failed")
			b.ReportMetric(float64(got.Fixed4Failed), "fixed4-failed")
			b.ReportMetric(float64(got.Refused), "refused")
			b.ReportMetric(float64(got.MostRefusals), "most-refusals")
			b.ReportMetric(float64(got.Peak), "peak")
			b.ReportMetric(float64(got.Final), "final")
		})
	}
}
