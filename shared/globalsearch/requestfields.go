package globalsearch

import (
	"encoding/json"
	"errors"
	"fmt"
)

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

// boolean builds the row of a true-or-false field, which has no
// deployment default; null is refused, as encoding/json would leave the
// default standing.
func boolean(name string, inParams func(*Params) *bool) requestField {
	return requestField{name: name, parse: func(raw json.RawMessage, p *Params) error {
		if err := json.Unmarshal(raw, inParams(p)); err != nil || string(raw) == "null" {
			return fmt.Errorf("%s must be a boolean", name)
		}
		return nil
	}}
}

func count(min int64, msg string) func(json.RawMessage) (int, error) {
	return func(raw json.RawMessage) (int, error) { return parseCount(raw, min, msg) }
}

// requestFields is docs/contract.md#request's table in its order: the first bad field is the
// one reported.
var requestFields = append([]requestField{
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
	boolean("shuffle", func(p *Params) *bool { return &p.Shuffle }),
	defaulted("batching", "GRAPHRAG_BATCHING", oneOf("batching", Batchings),
		func(p *Params) *string { return &p.Batching }, func(d *Defaults) *string { return &d.Batching }),
	defaulted("reduceMode", "GRAPHRAG_REDUCE_MODE", oneOf("reduceMode", ReduceModes),
		func(p *Params) *string { return &p.ReduceMode }, func(d *Defaults) *string { return &d.ReduceMode }),
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
	boolean("cache", func(p *Params) *bool { return &p.Cache }),
	{name: "standingQuery", parse: func(raw json.RawMessage, p *Params) (err error) {
		p.StandingQuery, err = parseString(raw, queryIDPattern, "standingQuery must be 1-80 characters of A-Z a-z 0-9 - _")
		return err
	}},
	boolean("standingReset", func(p *Params) *bool { return &p.StandingReset }),
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
}, knobFields...)
