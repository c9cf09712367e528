package globalsearch_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
)

// The deployed map's retries of a refused Bedrock call
// (docs/limits.md#deployed-map), as read from the code that makes them:
//   - shared/llm/bedrock installs the SDK's standard retryer (aws-sdk-go-v2
//     v1.48.0 retry.NewStandard), in the deployed functions with
//     WithQuotaWait (functions/internal/wiring): QuotaWaitMaxAttempts 12,
//     a ThrottlingException retried after rand[0,1) x min(1 s x 2^i, 8 s)
//     (DefaultMaxBackoff), i = 0, ..., 10, and no client-side retry quota;
//   - each invocation of the map function makes one such call (one
//     attempt), and the Map state's Retry on ThrottledError makes the
//     second after rand[0,1) x 5 s (IntervalSeconds 5, MaxAttempts 1,
//     JitterStrategy FULL in statemachine/globalsearch.asl.json), the
//     iteration holding its place in the Map's MaxConcurrency meanwhile.
const aslRetryInterval = 5 * time.Second // MapBatch's Retry on ThrottledError

// deployedMap is a model that calls m as the deployed map does: through
// the SDK's retries within an attempt, and, for a batch's second attempt,
// after the state machine's jittered wait.
type deployedMap struct {
	m   *bedrockQuota
	rng *rand.Rand

	mu       sync.Mutex
	attempts map[string]int // by batch content
}

func newDeployedMap(m *bedrockQuota) *deployedMap {
	return &deployedMap{m: m, rng: rand.New(rand.NewPCG(5, 5)), attempts: map[string]int{}}
}

// jitter is rand[0,1) x d, from the seeded source: the simulation is the
// same every run.
func (d *deployedMap) jitter(span time.Duration) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return time.Duration(d.rng.Float64() * float64(span))
}

func (d *deployedMap) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		return d.m.Complete(ctx, req)
	}
	d.mu.Lock()
	d.attempts[req.Content]++
	second := d.attempts[req.Content] > 1
	d.mu.Unlock()
	if second {
		if err := sleepCtx(ctx, d.jitter(aslRetryInterval)); err != nil {
			return gs.ModelResponse{}, err
		}
	}
	for try := 1; ; try++ {
		resp, err := d.m.Complete(ctx, req)
		if gs.KindOf(err) != gs.KindThrottled || try == bedrock.QuotaWaitMaxAttempts {
			return resp, err
		}
		if err := sleepCtx(ctx, d.jitter(min(time.Second<<(try-1), bedrock.DefaultMaxBackoff))); err != nil {
			return gs.ModelResponse{}, err
		}
	}
}
