package globalsearch

import "encoding/json"

// Params is a validated request with every default resolved. It is what a
// run stores and what the workflow passes between steps.
type Params struct {
	QueryID             string `json:"queryId"`
	Query               string `json:"query"`
	Namespace           string `json:"namespace"`
	CommunityLevel      Level  `json:"communityLevel"`
	MapTokenBudget      int    `json:"mapTokenBudget"`
	ReduceTokenBudget   int    `json:"reduceTokenBudget"`
	MapOutputReserve    int    `json:"mapOutputReserve"`
	ReduceOutputReserve int    `json:"reduceOutputReserve"`
	MapConcurrency      int    `json:"mapConcurrency"`
	ShuffleSeed         int64  `json:"shuffleSeed"`
	Shuffle             bool   `json:"shuffle"`
	// MapConcurrencyDefault says the request named no mapConcurrency, so
	// MapConcurrency is the deployment's default, and a known model quota
	// sizes the map concurrency instead (docs/contract.md#quota). The
	// JSON of such Params leaves mapConcurrency out (MarshalJSON), so the
	// execution input the API passes on is still a request that names
	// none; the runs table does not keep it, and SameRequest ignores it
	// (ClaimRequest takes it from the request given). Params built in Go
	// read false and run at their MapConcurrency, as they always did.
	MapConcurrencyDefault bool `json:"-"`
	// Batching is how prepare orders and cuts the batches
	// (docs/contract.md#stable-batching): BatchingGreedy, the shuffle and
	// greedy pack of docs/contract.md#batching, or BatchingStable. Empty (a
	// request stored before the field existed) means greedy.
	Batching string `json:"batching,omitempty"`
	// ReduceMode is how the reduce stage meets its budget
	// (docs/contract.md#reduce-rounds): ReduceModeSingle, one call over
	// what fits, or ReduceModeTree, rounds of intermediate calls until
	// one prompt holds every useful answer. Empty (a request stored
	// before the field existed) means single.
	ReduceMode string `json:"reduceMode,omitempty"`
	// ResponseType is the form the reduce prompt asks for (docs/contract.md#request).
	// Empty (a request stored before the field existed) means
	// DefaultResponseType.
	ResponseType string `json:"responseType,omitempty"`
	// Cache lets map calls reuse a cached answer (docs/contract.md#map-cache). A request
	// stored before the field existed reads false: it bypasses the cache,
	// which costs calls but never changes an answer.
	Cache bool `json:"cache"`
	// SeedGenerated says ParseRequest chose ShuffleSeed because the request
	// had none. It is never stored (a stored request has its seed fixed),
	// and it lets SameRequest tell a repeated request from a different one.
	SeedGenerated bool `json:"-"`
	// MaxModelCalls is the most model calls the run may make (docs/contract.md#model-call-ceiling):
	// the deployment's ceiling, or a lower one the request chose. 0 (a
	// Params built in Go, never a parsed request) is no ceiling.
	MaxModelCalls int `json:"maxModelCalls,omitempty"`
	// StandingQuery names the standing question the run is one run of
	// (docs/contract.md#standing-questions); "" is none.
	StandingQuery string `json:"standingQuery,omitempty"`
	// StandingReset starts the standing question's record afresh
	// (docs/contract.md#standing-questions): the stored one, unreadable
	// or another question's, is not read, and this run's replaces it.
	StandingReset bool `json:"standingReset,omitempty"`
	// Selection is SelectionDynamic for dynamic community selection
	// (docs/contract.md#dynamic-selection); "" selects by CommunityLevel.
	Selection string `json:"selection,omitempty"`
	// RatingThreshold is the score from which dynamic selection counts a
	// community relevant; 0 unless Selection is dynamic.
	RatingThreshold int `json:"ratingThreshold,omitempty"`
	// MaxMapInputTokens is the ceiling communityLevel "auto" chooses under
	// (docs/contract.md#auto-level); 0 is none, and a fixed level reads it not.
	MaxMapInputTokens int `json:"maxMapInputTokens,omitempty"`
	// MaxCostUSD is the most the run's worst case may cost at the
	// deployment's prices (docs/contract.md#cost-ceiling); 0 is no ceiling.
	MaxCostUSD float64 `json:"maxCostUsd,omitempty"`
	// Tokenizer counts every budget (docs/contract.md#token-estimate); ""
	// is the estimate, which is also how a request stored before the field
	// existed reads.
	Tokenizer string `json:"tokenizer,omitempty"`
	// PromptCache is the prompt cache every model call of the run asks
	// for (docs/contract.md#prompt-cache): off, 5m or 1h; "" is the
	// model's own default (5m where it caches).
	PromptCache string `json:"promptCache,omitempty"`
	// MapServiceTier and ReduceServiceTier are the Bedrock service tiers
	// of the map (and rating) and reduce calls (docs/contract.md#service-tiers);
	// "" sends none.
	MapServiceTier    string `json:"mapServiceTier,omitempty"`
	ReduceServiceTier string `json:"reduceServiceTier,omitempty"`
	// SeedPolicy is how a request that names no shuffleSeed gets one
	// (docs/contract.md#seed-policy): "question" (or "", a request stored
	// before the field existed) draws one at random, "namespace" has
	// prepare derive it from the namespace version it reads.
	SeedPolicy string `json:"seedPolicy,omitempty"`
}

// MarshalJSON encodes p as a request that resolves to p again
// (ParseRequest): a mapConcurrency the request did not name
// (MapConcurrencyDefault) is left out, so that parsing it gives the
// default and the flag again, and a quota may still size it.
func (p Params) MarshalJSON() ([]byte, error) {
	type plain Params
	// A seed prepare has yet to derive (docs/contract.md#seed-policy) is
	// left out too, so that parsing the request leaves it to prepare.
	if p.SeedPolicy == SeedPolicyNamespace && p.ShuffleSeed == 0 {
		o := struct {
			plain
			MapConcurrency *int   `json:"mapConcurrency,omitempty"` // shadows the plain field
			ShuffleSeed    *int64 `json:"shuffleSeed,omitempty"`    // likewise, left nil
		}{plain: plain(p)}
		if !p.MapConcurrencyDefault || p.MapConcurrency <= 0 {
			o.MapConcurrency = &p.MapConcurrency
		}
		return json.Marshal(o)
	}
	if !p.MapConcurrencyDefault || p.MapConcurrency <= 0 {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		plain
		MapConcurrency int `json:"mapConcurrency,omitempty"` // shadows the plain field, left zero
	}{plain: plain(p)})
}

// SameRequest reports whether p and q ask for the same run (docs/contract.md#query-ids):
// every field equal, except that a seed one of them did not choose
// (SeedGenerated) matches any seed, and a mapConcurrency named matches the
// same one defaulted (MapConcurrencyDefault). A retried schedule or workflow that
// sends no seed thus repeats its request, while two explicit seeds that
// differ are two requests.
func (p Params) SameRequest(q Params) bool {
	if p.SeedGenerated || q.SeedGenerated {
		p.ShuffleSeed = q.ShuffleSeed
	}
	p.SeedGenerated, q.SeedGenerated = false, false
	p.MapConcurrencyDefault, q.MapConcurrencyDefault = false, false
	p.Batching, q.Batching = batchingOf(p), batchingOf(q)
	p.ReduceMode, q.ReduceMode = reduceModeOf(p), reduceModeOf(q)
	p.SeedPolicy, q.SeedPolicy = seedPolicyOf(p), seedPolicyOf(q)
	return p == q
}

// DefaultResponseType is the form of answer a request asks for when it
// names none (docs/contract.md#result).
const DefaultResponseType = "multiple paragraphs"

// MaxResponseTypeRunes is the longest responseType, in code points.
const MaxResponseTypeRunes = 100

// MapPromptBudget is what the Map prompt may use (docs/contract.md#request).
func (p Params) MapPromptBudget() int { return p.MapTokenBudget - p.MapOutputReserve }

// ReducePromptBudget is what the Reduce prompt may use (docs/contract.md#request).
func (p Params) ReducePromptBudget() int { return p.ReduceTokenBudget - p.ReduceOutputReserve }
