package globalsearch

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Quota is the map model's quota as a deployment or the CLI states it
// (docs/contract.md#quota): tokens and requests a minute, 0 (or less) for
// a limit not known, and the time one map call is assumed to take.
type Quota struct {
	TokensPerMinute   int
	RequestsPerMinute int
	// CallSeconds is how long one map call takes; 0 means
	// DefaultCallSeconds.
	CallSeconds float64
}

// DefaultCallSeconds is the assumed time of one map call: about what a
// prompt of 8,000 tokens with a reply of up to 512 takes on a mid-sized
// Bedrock model.
const DefaultCallSeconds = 10.0

// MaxCallSeconds bounds CallSeconds: no map call is given longer (the map
// function's timeout is 180 s), and the bound keeps the arithmetic far from
// overflow.
const MaxCallSeconds = 3600.0

// The variables that state the quota (docs/contract.md#quota): the
// template sets them on prepare, and the CLI's plan flags default to them.
const (
	EnvModelTokensPerMinute   = "GRAPHRAG_MODEL_TOKENS_PER_MINUTE"
	EnvModelRequestsPerMinute = "GRAPHRAG_MODEL_REQUESTS_PER_MINUTE"
	EnvMapCallSeconds         = "GRAPHRAG_MAP_CALL_SECONDS"
)

// AssumedCallSeconds is the call time the arithmetic uses: q's,
// DefaultCallSeconds for none (or one no parser accepts: a Quota built in
// Go is not checked).
func (q Quota) AssumedCallSeconds() float64 {
	if q.CallSeconds > 0 && q.CallSeconds <= MaxCallSeconds {
		return q.CallSeconds
	}
	return DefaultCallSeconds
}

// ParseQuotaLimit reads a tokens- or requests-per-minute value as a
// variable or a flag gives it: a non-negative integer, 0 for not known.
func ParseQuotaLimit(s string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("must be a non-negative integer (0: not known), not %q", s)
	}
	return int(n), nil
}

// ParseCallSeconds reads a call time as a variable or a flag gives it: a
// positive number of seconds up to MaxCallSeconds.
func ParseCallSeconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || v > MaxCallSeconds {
		return 0, fmt.Errorf("must be a positive number of seconds up to %g, not %q", MaxCallSeconds, s)
	}
	return v, nil
}

// QuotaFromEnv reads the quota through lookup (os.LookupEnv); an unset or
// empty variable is not known. A bad value is refused, naming its
// variable, so a broken deployment fails at start.
func QuotaFromEnv(lookup func(string) (string, bool)) (Quota, error) {
	var q Quota
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		return v, ok && strings.TrimSpace(v) != ""
	}
	for _, l := range []struct {
		name string
		to   *int
	}{{EnvModelTokensPerMinute, &q.TokensPerMinute}, {EnvModelRequestsPerMinute, &q.RequestsPerMinute}} {
		if v, ok := get(l.name); ok {
			n, err := ParseQuotaLimit(v)
			if err != nil {
				return Quota{}, Errorf(KindInvalidInput, "%s %w", l.name, err)
			}
			*l.to = n
		}
	}
	if v, ok := get(EnvMapCallSeconds); ok {
		s, err := ParseCallSeconds(v)
		if err != nil {
			return Quota{}, Errorf(KindInvalidInput, "%s %w", EnvMapCallSeconds, err)
		}
		q.CallSeconds = s
	}
	return q, nil
}

// claudeGeneration finds the generation of a Claude model id:
// claude-sonnet-4-…, claude-opus-4-1-…, claude-3-7-sonnet-….
var claudeGeneration = regexp.MustCompile(`claude-(?:(?:opus|sonnet|haiku)-(\d+)|(\d+)-(\d+)-)`)

// OutputWeight is how many quota tokens one output token of model spends
// (docs/contract.md#quota): Bedrock counts each output token of Claude 3.7
// Sonnet and of the Claude 4 generation and later five times, of every
// other model once.
func OutputWeight(model string) int {
	m := claudeGeneration.FindStringSubmatch(strings.ToLower(model))
	if m == nil {
		return 1
	}
	if m[1] != "" {
		if n, _ := strconv.Atoi(m[1]); n >= 4 {
			return 5
		}
		return 1
	}
	major, _ := strconv.Atoi(m[2])
	minor, _ := strconv.Atoi(m[3])
	if major > 3 || (major == 3 && minor >= 7) {
		return 5
	}
	return 1
}

// MapLoad is what a plan's map stage asks of the quota.
type MapLoad struct {
	// InputTokens are each map call's estimated prompt tokens.
	InputTokens []int
	// OutputReserve is each call's maxTokens, OutputWeight its model's
	// weight.
	OutputReserve, OutputWeight int
}

// MapSizing is the map concurrency a run gets and how long it is expected
// to take (docs/contract.md#quota).
type MapSizing struct {
	MapConcurrency int `json:"mapConcurrency"`
	ETASeconds     int `json:"etaSeconds"`
}

// MapCaps bound the concurrency: Requested is the caller's own
// mapConcurrency (0: the request named none), Default what a request that
// names none runs at when no quota is known, Max the deployment's cap (0:
// none).
type MapCaps struct {
	Requested, Default, Max int
}

// SizeMap is the map concurrency q sustains for load, within caps, and
// the expected time of the run's model calls (docs/contract.md#quota).
// Bedrock reserves a call's input tokens and its maxTokens, at the output
// weight, when it admits the call, so at C calls in flight of T seconds
// each a minute admits C x 60 / T calls of R reserved tokens on average:
// the tokens quota sustains floor(TPM x T / (60 x R)) and the requests
// quota floor(RPM x T / 60). Without a known quota the concurrency is the
// request's (or its default), as it always was.
func SizeMap(q Quota, load MapLoad, caps MapCaps) MapSizing {
	n := len(load.InputTokens)
	t := q.AssumedCallSeconds()
	var reserved float64
	for _, in := range load.InputTokens {
		reserved += float64(in) + float64(load.OutputWeight)*float64(load.OutputReserve)
	}
	sustained := math.MaxInt32 // what the quota sustains; MaxInt32 when it says nothing
	if q.TokensPerMinute > 0 && reserved > 0 {
		sustained = floorCount(float64(q.TokensPerMinute) * t * float64(n) / (60 * reserved))
	}
	if q.RequestsPerMinute > 0 {
		sustained = min(sustained, floorCount(float64(q.RequestsPerMinute)*t/60))
	}
	c := caps.Default
	switch {
	case sustained < math.MaxInt32 && caps.Requested > 0:
		c = min(sustained, caps.Requested)
	case sustained < math.MaxInt32:
		c = sustained
	case caps.Requested > 0:
		c = caps.Requested
	}
	if caps.Max > 0 {
		c = min(c, caps.Max)
	}
	c = max(c, 1)
	if n == 0 {
		return MapSizing{MapConcurrency: c} // no batch, so no call (MostModelCalls)
	}
	waves := math.Ceil(float64(n)/float64(c)) * t
	if q.TokensPerMinute > 0 {
		waves = max(waves, reserved/float64(q.TokensPerMinute)*60)
	}
	if q.RequestsPerMinute > 0 {
		waves = max(waves, float64(n)/float64(q.RequestsPerMinute)*60)
	}
	// The reduce is one more call once every map call is back.
	return MapSizing{MapConcurrency: c, ETASeconds: int(math.Ceil(waves + t - 1e-9))}
}

// floorCount is floor(x) for a count computed in floating point, where a
// quotient that is a whole number may come out a hair below it.
func floorCount(x float64) int {
	if x >= math.MaxInt32 {
		return math.MaxInt32
	}
	return int(math.Floor(x + 1e-9))
}

// sizeMap records in plan the map concurrency of its run and how long its
// model calls are expected to take (docs/contract.md#quota), from the
// engine's quota, the map model's output weight and the caps p and the
// deployment set. Prepare and the dry run both call it, so plan prints
// what prepare hands the state machine.
func (e *Engine) sizeMap(p Params, plan *Plan) {
	tokens := make([]int, len(plan.Batches))
	for i, b := range plan.Batches {
		tokens[i] = b.EstimatedTokens
	}
	s := e.sizeCalls(p, tokens)
	plan.MapConcurrency, plan.ETASeconds = s.MapConcurrency, s.ETASeconds
}

// sizeCalls is SizeMap for calls of the map model with prompts of tokens
// estimated tokens each, replying within p's map output reserve, within
// the caps p and the deployment set: a plan's map batches, or a dynamic
// selection's rating batches of one round, which call the same model
// under the same quota.
func (e *Engine) sizeCalls(p Params, tokens []int) MapSizing {
	load := MapLoad{InputTokens: tokens, OutputReserve: p.MapOutputReserve, OutputWeight: OutputWeight(e.ModelID)}
	caps := MapCaps{Default: p.MapConcurrency, Max: e.MapMaxConcurrency}
	if !p.MapConcurrencyDefault {
		caps.Requested = p.MapConcurrency
	}
	return SizeMap(e.Quota, load, caps)
}
