package globalsearch

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// MaxQueryRunes is the longest query accepted, in code points (docs/contract.md#request).
const MaxQueryRunes = 4000

// Request is a search request as a Go caller builds it; nil fields take
// their defaults. Params validates it through the same path as JSON.
type Request struct {
	Query               string   `json:"query"`
	Namespace           string   `json:"namespace,omitempty"`
	CommunityLevel      *Level   `json:"communityLevel,omitempty"`
	MapTokenBudget      *int     `json:"mapTokenBudget,omitempty"`
	ReduceTokenBudget   *int     `json:"reduceTokenBudget,omitempty"`
	MapOutputReserve    *int     `json:"mapOutputReserve,omitempty"`
	ReduceOutputReserve *int     `json:"reduceOutputReserve,omitempty"`
	MapConcurrency      *int     `json:"mapConcurrency,omitempty"`
	ShuffleSeed         *int64   `json:"shuffleSeed,omitempty"`
	Shuffle             *bool    `json:"shuffle,omitempty"`
	Batching            *string  `json:"batching,omitempty"`
	ReduceMode          *string  `json:"reduceMode,omitempty"`
	QueryID             string   `json:"queryId,omitempty"`
	ResponseType        *string  `json:"responseType,omitempty"`
	Cache               *bool    `json:"cache,omitempty"`
	MaxModelCalls       *int     `json:"maxModelCalls,omitempty"`
	StandingQuery       *string  `json:"standingQuery,omitempty"`
	StandingReset       *bool    `json:"standingReset,omitempty"`
	Selection           *string  `json:"selection,omitempty"`
	RatingThreshold     *int     `json:"ratingThreshold,omitempty"`
	MaxMapInputTokens   *int     `json:"maxMapInputTokens,omitempty"`
	MaxCostUSD          *float64 `json:"maxCostUsd,omitempty"`
	Tokenizer           *string  `json:"tokenizer,omitempty"`
	PromptCache         *string  `json:"promptCache,omitempty"`
	MapServiceTier      *string  `json:"mapServiceTier,omitempty"`
	ReduceServiceTier   *string  `json:"reduceServiceTier,omitempty"`
	SeedPolicy          *string  `json:"seedPolicy,omitempty"`
}

// Params validates the request against the defaults (docs/contract.md#request).
func (r Request) Params(d Defaults) (Params, error) {
	// encoding/json would write invalid UTF-8 as U+FFFD, which the JSON
	// path then accepts: a Go caller's text is held to the rule a JSON
	// request's is (strictjson.Check, docs/contract.md#strict-json).
	// The other strings have patterns of ASCII, which U+FFFD fails anyway.
	texts := []struct {
		name string
		text *string
	}{{"query", &r.Query}, {"responseType", r.ResponseType}}
	for _, f := range texts {
		if f.text != nil && !utf8.ValidString(*f.text) {
			return Params{}, Errorf(KindInvalidInput, "request: %s in %s", strictjson.NotUTF8, f.name)
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		return Params{}, Errorf(KindInternal, "encode request: %w", err)
	}
	return ParseRequest(data, d)
}

// ParseRequest decodes and validates a JSON request (docs/contract.md#request): unknown
// fields are rejected, then each field is checked in the contract's order, then
// the budgets against their reserves. A missing queryId or shuffleSeed is
// generated here, so the returned Params replay the run exactly.
//
// The budgets are checked against d.Prompts, the prompts the run will use.
func ParseRequest(data []byte, d Defaults) (Params, error) {
	return parseRequest(data, d, "", d.Prompts.orDefault())
}

// ParseRequestWithID is ParseRequest for an edge that names the run itself
// (an execution name, an Idempotency-Key): id is the request's queryId when
// data has none, checked by the same rule in the same place. The edge never
// rewrites the JSON, which could lose what ParseRequest must see.
func ParseRequestWithID(data []byte, d Defaults, id string) (Params, error) {
	return parseRequest(data, d, id, d.Prompts.orDefault())
}

func parseRequest(data []byte, d Defaults, id string, prompts Prompts) (Params, error) {
	fields, err := decodeObject(data)
	if err != nil {
		return Params{}, err
	}
	for name := range fields {
		if !slices.ContainsFunc(requestFields, func(f requestField) bool { return f.name == name }) {
			return Params{}, Errorf(KindInvalidInput, "unknown request field %s", EchoQuoted(name))
		}
	}
	// SeedGenerated stands until a shuffleSeed field clears it.
	p := Params{Shuffle: true, Cache: true, SeedGenerated: true, ResponseType: DefaultResponseType}
	for _, f := range requestFields {
		if f.useDefault != nil {
			f.useDefault(d, &p)
		}
	}
	_, named := fields["mapConcurrency"]
	p.MapConcurrencyDefault = !named
	if _, ok := fields["queryId"]; !ok && id != "" {
		fields["queryId"], _ = json.Marshal(id)
	}
	for _, f := range requestFields {
		raw, present := fields[f.name]
		if !present && f.name != "query" {
			continue
		}
		if err := f.parse(raw, &p); err != nil {
			return Params{}, &Error{Kind: KindInvalidInput, Err: err}
		}
	}
	if p.StandingReset && p.StandingQuery == "" {
		return Params{}, Errorf(KindInvalidInput, "standingReset resets the record of a standing question: name it in standingQuery")
	}
	if err := batchingFitsShuffle(p); err != nil {
		return Params{}, err
	}
	if err := checkSelection(fields, &p); err != nil {
		return Params{}, err
	}
	if err := reservesLeaveRoom(p, prompts); err != nil {
		return Params{}, err
	}
	if d.MaxModelCalls > 0 && p.MaxModelCalls > d.MaxModelCalls {
		return Params{}, Errorf(KindInvalidInput,
			"maxModelCalls %d is above this deployment's ceiling of %d model calls per run: ask for at most %d, or raise the deployment's MaxModelCalls",
			p.MaxModelCalls, d.MaxModelCalls, d.MaxModelCalls)
	}
	if err := ceilingsHold(p, d); err != nil {
		return Params{}, err
	}
	if err := promptsFit(p, prompts); err != nil {
		return Params{}, err
	}
	if err := ratingPromptFits(p); err != nil {
		return Params{}, err
	}
	if p.QueryID == "" {
		p.QueryID = NewQueryID()
	}
	settleSeed(&p)
	return p, nil
}

// settleSeed fixes the seed of a request that named none (SeedGenerated):
// none is drawn for a run that shuffles nothing or hashes (stable), a
// namespace seed is left to prepare (docs/contract.md#seed-policy), and
// any other gets a random one, recorded so the run replays.
func settleSeed(p *Params) {
	switch {
	case p.SeedGenerated && !p.Shuffle:
		// Nothing is shuffled, so no seed is drawn and none is recorded
		// (docs/contract.md#request): a random one would read as replayable.
		p.SeedGenerated = false
	case p.SeedGenerated && p.Batching == BatchingStable:
		// A random seed would reorder every batch of the next run: stable
		// batching hashes with seed 0 unless asked (docs/contract.md#stable-batching).
		p.SeedGenerated = false
	case p.SeedGenerated && p.SeedPolicy == SeedPolicyNamespace:
		// Prepare derives it from the namespace version it reads
		// (docs/contract.md#seed-policy); until then it is 0, and it
		// matches any seed as a drawn one does (SameRequest).
		p.ShuffleSeed = 0
	case p.ShuffleSeed == 0 && p.SeedPolicy == SeedPolicyNamespace:
		// Under the namespace policy 0 stands for a seed prepare derives:
		// the seed the request named wins (docs/contract.md#seed-policy).
		p.SeedPolicy = SeedPolicyQuestion
	case p.SeedGenerated:
		p.ShuffleSeed = randomSeed()
	}
}
