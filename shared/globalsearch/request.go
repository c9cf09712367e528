package globalsearch

import (
	"encoding/json"
	"errors"
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
}

// MarshalJSON encodes p as a request that resolves to p again
// (ParseRequest): a mapConcurrency the request did not name
// (MapConcurrencyDefault) is left out, so that parsing it gives the
// default and the flag again, and a quota may still size it.
func (p Params) MarshalJSON() ([]byte, error) {
	type plain Params
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

// Defaults are the values a request field takes when it is absent: a
// deployment's configured defaults, else docs/contract.md#request's.
type Defaults struct {
	Namespace           string
	CommunityLevel      Level
	MapTokenBudget      int
	ReduceTokenBudget   int
	MapOutputReserve    int
	ReduceOutputReserve int
	MapConcurrency      int
	// Batching is the request's batching when it names none:
	// BatchingGreedy or BatchingStable.
	Batching string
	// MaxModelCalls is the deployment's ceiling: a request may lower it,
	// never raise it. 0 is no ceiling.
	MaxModelCalls int
	// MaxMapInputTokens is the default ceiling of communityLevel "auto"
	// (docs/contract.md#auto-level); 0 is none.
	MaxMapInputTokens int
	// MaxCostUSD is the deployment's cost ceiling per run
	// (docs/contract.md#cost-ceiling): a request may lower it, never raise
	// it. 0 is none.
	MaxCostUSD float64
	// Tokenizer is the deployment's tokenizer option; "" is the model
	// family's default, which ForModel fills in (docs/contract.md#token-estimate).
	Tokenizer string
	// Prompts are the prompts the budgets are checked against
	// (docs/contract.md#budgets): the engine's, which a prompts directory
	// may set (docs/contract.md#custom-prompts); a zero part is the
	// project's own.
	Prompts Prompts
}

// DefaultMaxModelCalls is the ceiling on one run's model calls when the
// deployment sets none: four times the 124 calls the largest import of the
// real corpus (full reports, whole text units) plans at the default
// budgets, so no default request meets it, while a run that would loop
// over thousands of tiny batches is refused before it spends.
const DefaultMaxModelCalls = 500

// SpecDefaults are the defaults of docs/contract.md#request.
var SpecDefaults = Defaults{
	Namespace:           "default",
	CommunityLevel:      LeafLevel,
	MapTokenBudget:      8000,
	ReduceTokenBudget:   8000,
	MapOutputReserve:    512,
	ReduceOutputReserve: 1024,
	MapConcurrency:      4,
	Batching:            BatchingGreedy,
	MaxModelCalls:       DefaultMaxModelCalls,
}

// requestField is one row of docs/contract.md#request's request table. The table drives
// parsing, the deployment's environment defaults and their messages, so a
// field is described once. A defaulted field (env set) also lives in
// Defaults; the others have no deployment default.
type requestField struct {
	name string
	env  string // the GRAPHRAG_* variable setting its default; "" for none
	// parse checks raw by the field's rule and stores it in p.
	parse func(raw json.RawMessage, p *Params) error
	// setDefault checks raw by the same rule and stores it in d; useDefault
	// copies d's value into p. Both are nil for a field without a default.
	setDefault func(raw json.RawMessage, d *Defaults) error
	useDefault func(d Defaults, p *Params)
}

// defaulted builds the row of a field that has a deployment default: the
// same rule and the same message serve the request and the environment.
func defaulted[T any](name, env string, rule func(json.RawMessage) (T, error), inParams func(*Params) *T, inDefaults func(*Defaults) *T) requestField {
	return requestField{
		name: name, env: env,
		parse: func(raw json.RawMessage, p *Params) (err error) {
			*inParams(p), err = rule(raw)
			return err
		},
		setDefault: func(raw json.RawMessage, d *Defaults) (err error) {
			*inDefaults(d), err = rule(raw)
			return err
		},
		useDefault: func(d Defaults, p *Params) { *inParams(p) = *inDefaults(&d) },
	}
}

func count(min int64, msg string) func(json.RawMessage) (int, error) {
	return func(raw json.RawMessage) (int, error) { return parseCount(raw, min, msg) }
}

// requestFields is docs/contract.md#request's table in its order: the first bad field is the
// one reported.
var requestFields = []requestField{
	{name: "query", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.Query, err = parseQuery(raw)
		return err
	}},
	defaulted("namespace", "GRAPHRAG_NAMESPACE", parseNamespace,
		func(p *Params) *string { return &p.Namespace }, func(d *Defaults) *string { return &d.Namespace }),
	defaulted("communityLevel", "GRAPHRAG_COMMUNITY_LEVEL", func(raw json.RawMessage) (Level, error) { return parseLevel(raw) },
		func(p *Params) *Level { return &p.CommunityLevel }, func(d *Defaults) *Level { return &d.CommunityLevel }),
	defaulted("mapTokenBudget", "GRAPHRAG_MAP_TOKEN_BUDGET", count(1, "mapTokenBudget must be a positive integer"),
		func(p *Params) *int { return &p.MapTokenBudget }, func(d *Defaults) *int { return &d.MapTokenBudget }),
	defaulted("reduceTokenBudget", "GRAPHRAG_REDUCE_TOKEN_BUDGET", count(1, "reduceTokenBudget must be a positive integer"),
		func(p *Params) *int { return &p.ReduceTokenBudget }, func(d *Defaults) *int { return &d.ReduceTokenBudget }),
	defaulted("mapOutputReserve", "GRAPHRAG_MAP_OUTPUT_RESERVE", count(0, "mapOutputReserve must be a non-negative integer"),
		func(p *Params) *int { return &p.MapOutputReserve }, func(d *Defaults) *int { return &d.MapOutputReserve }),
	defaulted("reduceOutputReserve", "GRAPHRAG_REDUCE_OUTPUT_RESERVE", count(0, "reduceOutputReserve must be a non-negative integer"),
		func(p *Params) *int { return &p.ReduceOutputReserve }, func(d *Defaults) *int { return &d.ReduceOutputReserve }),
	defaulted("mapConcurrency", "GRAPHRAG_MAP_CONCURRENCY", count(1, "mapConcurrency must be a positive integer"),
		func(p *Params) *int { return &p.MapConcurrency }, func(d *Defaults) *int { return &d.MapConcurrency }),
	{name: "shuffleSeed", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.ShuffleSeed, err = parseInt64(raw, 0, "shuffleSeed must be a non-negative integer")
		p.SeedGenerated = false
		return err
	}},
	{name: "shuffle", parse: func(raw json.RawMessage, p *Params) error {
		if err := json.Unmarshal(raw, &p.Shuffle); err != nil || string(raw) == "null" {
			return errors.New("shuffle must be a boolean")
		}
		return nil
	}},
	defaulted("batching", "GRAPHRAG_BATCHING", parseBatching,
		func(p *Params) *string { return &p.Batching }, func(d *Defaults) *string { return &d.Batching }),
	{name: "queryId", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.QueryID, err = parseString(raw, queryIDPattern, "queryId must be 1-80 characters of A-Z a-z 0-9 - _")
		return err
	}},
	// docs/contract.md#state-machine: parseRequest also holds it to the deployment's value,
	// which it may only lower.
	defaulted("maxModelCalls", "GRAPHRAG_MAX_MODEL_CALLS", count(1, "maxModelCalls must be a positive integer"),
		func(p *Params) *int { return &p.MaxModelCalls }, func(d *Defaults) *int { return &d.MaxModelCalls }),
	defaulted("maxMapInputTokens", "GRAPHRAG_MAX_MAP_INPUT_TOKENS", count(1, "maxMapInputTokens must be a positive integer"),
		func(p *Params) *int { return &p.MaxMapInputTokens }, func(d *Defaults) *int { return &d.MaxMapInputTokens }),
	defaulted("maxCostUsd", "GRAPHRAG_MAX_COST_USD", parseUSD,
		func(p *Params) *float64 { return &p.MaxCostUSD }, func(d *Defaults) *float64 { return &d.MaxCostUSD }),
	{name: "responseType", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.ResponseType, err = parseResponseType(raw)
		return err
	}},
	{name: "cache", parse: func(raw json.RawMessage, p *Params) error {
		if err := json.Unmarshal(raw, &p.Cache); err != nil || string(raw) == "null" {
			return errors.New("cache must be a boolean")
		}
		return nil
	}},
	{name: "standingQuery", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.StandingQuery, err = parseString(raw, queryIDPattern, "standingQuery must be 1-80 characters of A-Z a-z 0-9 - _")
		return err
	}},
	{name: "standingReset", parse: func(raw json.RawMessage, p *Params) error {
		if err := json.Unmarshal(raw, &p.StandingReset); err != nil || string(raw) == "null" {
			return errors.New("standingReset must be a boolean")
		}
		return nil
	}},
	{name: "selection", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.Selection, err = parseSelection(raw)
		return err
	}},
	{name: "ratingThreshold", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.RatingThreshold, err = parseCount(raw, 1, ratingThresholdRule)
		if err == nil && p.RatingThreshold > MaxRating {
			err = errors.New(ratingThresholdRule)
		}
		return err
	}},
	tokenizerField,
}

// DefaultsFromEnv reads a deployment's defaults from GRAPHRAG_* variables
// through lookup (os.LookupEnv). A set variable is checked by the same rule
// as the request field it stands for, so a bad deployment fails at start.
func DefaultsFromEnv(lookup func(string) (string, bool)) (Defaults, error) {
	d := SpecDefaults
	for _, f := range requestFields {
		if f.env == "" {
			continue
		}
		v, ok := lookup(f.env)
		if !ok || v == "" {
			continue
		}
		raw := []byte(v)
		if f.name == "namespace" || f.name == "batching" || f.name == "tokenizer" || (f.name == "communityLevel" && (v == "leaf" || v == "auto")) {
			raw, _ = json.Marshal(v)
		}
		if err := f.setDefault(raw, &d); err != nil {
			return Defaults{}, Errorf(KindInvalidInput, "%s: %w", f.env, err)
		}
	}
	return d, nil
}

// DefaultVariable is the GRAPHRAG_* variable that sets the default of the
// request field named field (docs/contract.md#request), "" for a field
// without a deployment default, so that a help text names the variable
// from the same table DefaultsFromEnv reads.
func DefaultVariable(field string) string {
	for _, f := range requestFields {
		if f.name == field {
			return f.env
		}
	}
	return ""
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
	switch {
	case p.SeedGenerated && !p.Shuffle:
		// Nothing is shuffled, so no seed is drawn and none is recorded
		// (docs/contract.md#request): a random one would read as replayable.
		p.SeedGenerated = false
	case p.SeedGenerated && p.Batching == BatchingStable:
		// A random seed would reorder every batch of the next run: stable
		// batching hashes with seed 0 unless asked (docs/contract.md#stable-batching).
		p.SeedGenerated = false
	case p.SeedGenerated:
		p.ShuffleSeed = randomSeed()
	}
	return p, nil
}
