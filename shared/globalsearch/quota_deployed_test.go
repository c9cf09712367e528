package globalsearch_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The deployed map's retries of a refused Bedrock call
// (docs/limits.md#bedrock-quota-double), as read from the code that makes
// them:
//   - shared/llm/bedrock installs the SDK's standard retryer (aws-sdk-go-v2
//     v1.48.0 retry.NewStandard), in the deployed functions with
//     WithQuotaWait's QuotaWaitMaxAttempts 12 and DefaultMaxBackoff 8 s
//     (functions/internal/wiring): a ThrottlingException is retried after
//     rand[0,1) x min(1 s x 2^i, 8 s), i = 0, ..., 10, each retry taking
//     DefaultThrottlingRetryCost 5 from the client's retry quota (500,
//     DefaultRetryRateTokens), a first attempt that succeeds giving 1 back
//     (DefaultNoRetryIncrement) and a retry that succeeds its own 5; with
//     the quota spent the SDK returns the refusal without retrying;
//   - each invocation of the map function makes one such call (one
//     attempt), and the Map state's Retry on ThrottledError makes the
//     second after rand[0,1) x 5 s (IntervalSeconds 5, MaxAttempts 1,
//     JitterStrategy FULL in statemachine/globalsearch.asl.json), the
//     iteration holding its place in the Map's MaxConcurrency meanwhile.
const (
	sdkMaxAttempts   = 12              // shared/llm/bedrock QuotaWaitMaxAttempts
	sdkMaxBackoff    = 8 * time.Second // shared/llm/bedrock DefaultMaxBackoff
	sdkRetryQuota    = 500             // retry.DefaultRetryRateTokens, per client
	sdkThrottleCost  = 5               // retry.DefaultThrottlingRetryCost
	sdkNoRetryRefund = 1               // retry.DefaultNoRetryIncrement
	aslRetryInterval = 5 * time.Second // MapBatch's Retry on ThrottledError
)

// deployedMap is a model that calls m as the deployed map does: through
// the SDK's retries within an attempt, and, for a batch's second attempt,
// after the state machine's jittered wait. One retry quota serves all
// calls: the Map's iterations run in as many Lambda environments as its
// concurrency, each with its own client and 500 tokens, so quota x
// concurrency, shared, is the same spend spread over them.
type deployedMap struct {
	m   *bedrockQuota
	rng *rand.Rand

	mu       sync.Mutex
	tokens   int
	capacity int
	attempts map[string]int // by batch content
}

func newDeployedMap(m *bedrockQuota, concurrency int) *deployedMap {
	return &deployedMap{m: m, rng: rand.New(rand.NewPCG(5, 5)), tokens: sdkRetryQuota * concurrency, capacity: sdkRetryQuota * concurrency, attempts: map[string]int{}}
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
		if gs.KindOf(err) != gs.KindThrottled {
			d.settle(try, err)
			return resp, err
		}
		if try == sdkMaxAttempts || !d.take() {
			return resp, err
		}
		if err := sleepCtx(ctx, d.jitter(min(time.Second<<(try-1), sdkMaxBackoff))); err != nil {
			return gs.ModelResponse{}, err
		}
	}
}

// take spends a retry's cost from the retry quota, or reports it spent.
func (d *deployedMap) take() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tokens < sdkThrottleCost {
		return false
	}
	d.tokens -= sdkThrottleCost
	return true
}

// settle gives the retry quota back what a call that succeeded in its
// try-th HTTP attempt returns.
func (d *deployedMap) settle(try int, err error) {
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if try == 1 {
		d.tokens += sdkNoRetryRefund
	} else {
		d.tokens += sdkThrottleCost
	}
	d.tokens = min(d.tokens, d.capacity)
}
