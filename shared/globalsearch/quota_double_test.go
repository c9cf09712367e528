package globalsearch_test

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
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
	last             time.Time // the last call's end or refusal
	settled          int       // quota the calls used, once settled
	calls            int
	refusals         map[string]int // by batch content
	admitted         []quotaCall
}

// quotaCall is what one admitted call took from the tokens bucket: reserve
// when admitted, used once settled.
type quotaCall struct{ reserve, used int }

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
		m.last = now
		m.mu.Unlock()
		return gs.ModelResponse{}, gs.Errorf(gs.KindThrottled, "tokens or requests per minute spent")
	}
	m.tokens -= float64(reserve)
	m.requests--
	m.calls++
	used := input + m.outputWeight*quotaOutputTokens
	m.admitted = append(m.admitted, quotaCall{reserve: reserve, used: used})
	m.mu.Unlock()
	if err := sleepCtx(ctx, m.latency); err != nil {
		return gs.ModelResponse{}, err
	}
	m.mu.Lock()
	m.tokens = min(m.perMinute, m.tokens+float64(reserve-used))
	m.settled += used
	if now := time.Now(); now.After(m.end) {
		m.end, m.last = now, now
	}
	m.mu.Unlock()
	return gs.ModelResponse{Text: `{"answer":"Cross-sector trend","usefulness":72}`, InputTokens: input, OutputTokens: quotaOutputTokens}, nil
}

// refillBound is a floor under any schedule of m's calls: empty buckets
// must have refilled every settled token and every request before the
// last call is admitted, and that call then takes its latency. It is not
// reached where a call's reservation is larger than what it settles to:
// the bucket must hold the reservation before the rest comes back, one
// latency later (at 100k tokens a minute a 7,563-token reservation takes
// 4.5 s of refill, and settles to 5,063 only 10 s on).
func (m *bedrockQuota) refillBound() float64 {
	refill := max(float64(m.settled)/m.perMinute, float64(m.calls)/m.requestsPerMinute) * 60
	return refill + m.latency.Seconds()
}

// bound is the shortest map stage any schedule of m's calls could have:
// an oracle that sees the buckets admits each call, smallest reservation
// first, the moment both buckets cover it, and its unused reservation comes
// back when it ends. Admitting a call later never admits the next one
// sooner, so no schedule's last admission comes earlier; the last call then
// takes its latency. It is at least refillBound, and equal to it where the
// requests bind (400k tokens a minute).
func (m *bedrockQuota) bound() float64 {
	calls := slices.SortedFunc(slices.Values(m.admitted), func(a, b quotaCall) int { return cmp.Compare(a.reserve, b.reserve) })
	rate, reqRate := m.perMinute/60, m.requestsPerMinute/60
	lat := m.latency.Seconds()
	type refund struct{ at, tokens float64 }
	var pending []refund // in the order they come back: admissions are in time order
	now, tokens, requests, last := 0.0, 0.0, 0.0, 0.0
	advance := func(to float64) {
		tokens = min(m.perMinute, tokens+(to-now)*rate)
		requests = min(m.requestsPerMinute, requests+(to-now)*reqRate)
		now = to
	}
	for _, c := range calls {
		for {
			wait := max(0, (float64(c.reserve)-tokens)/rate, (1-requests)/reqRate)
			if len(pending) > 0 && pending[0].at <= now+wait {
				advance(max(now, pending[0].at))
				tokens = min(m.perMinute, tokens+pending[0].tokens)
				pending = pending[1:]
				continue
			}
			advance(now + wait)
			break
		}
		tokens -= float64(c.reserve)
		requests--
		pending = append(pending, refund{now + lat, float64(c.reserve - c.used)})
		last = now
	}
	return last + lat
}
