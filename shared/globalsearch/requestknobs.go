package globalsearch

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// The model-call settings a request carries to every call of its run
// (docs/contract.md#prompt-cache, docs/contract.md#service-tiers) and the
// seed policy prepare applies (docs/contract.md#seed-policy). They are
// words, so each has its list of values and one rule that names them.

// The promptCache values: no cache point, Bedrock's 5-minute and 1-hour
// cache TTLs.
const (
	PromptCacheOff = "off"
	PromptCache5m  = "5m"
	PromptCache1h  = "1h"
)

// PromptCaches are promptCache's values, in the contract's order.
var PromptCaches = []string{PromptCacheOff, PromptCache5m, PromptCache1h}

// ServiceTiers are the values of mapServiceTier and reduceServiceTier:
// Bedrock's serviceTier types (the bedrock adapter's test holds them to the
// SDK's list). "" sends none, so the model's own default applies.
var ServiceTiers = []string{"default", "priority", "flex", "reserved"}

// The seedPolicy values: a fresh shuffle per question, or one seed per
// namespace version.
const (
	SeedPolicyQuestion  = "question"
	SeedPolicyNamespace = "namespace"
)

// SeedPolicies are seedPolicy's values.
var SeedPolicies = []string{SeedPolicyQuestion, SeedPolicyNamespace}

// oneOf is the rule of a field whose value is one word of values: the
// refusal names them all, so a caller learns the values from the error.
func oneOf(name string, values []string) func(json.RawMessage) (string, error) {
	msg := name + " must be one of " + strings.Join(values, ", ")
	return func(raw json.RawMessage) (string, error) {
		var s string
		if string(raw) == "null" || json.Unmarshal(raw, &s) != nil || !slices.Contains(values, s) {
			return "", errors.New(msg)
		}
		return s, nil
	}
}

// knobFields are the rows of docs/contract.md#request's table for these
// settings; requestFields holds them in its order.
var knobFields = []requestField{
	defaulted("promptCache", "GRAPHRAG_PROMPT_CACHE", oneOf("promptCache", PromptCaches),
		func(p *Params) *string { return &p.PromptCache }, func(d *Defaults) *string { return &d.PromptCache }),
	defaulted("mapServiceTier", "GRAPHRAG_MAP_SERVICE_TIER", oneOf("mapServiceTier", ServiceTiers),
		func(p *Params) *string { return &p.MapServiceTier }, func(d *Defaults) *string { return &d.MapServiceTier }),
	defaulted("reduceServiceTier", "GRAPHRAG_REDUCE_SERVICE_TIER", oneOf("reduceServiceTier", ServiceTiers),
		func(p *Params) *string { return &p.ReduceServiceTier }, func(d *Defaults) *string { return &d.ReduceServiceTier }),
	defaulted("seedPolicy", "GRAPHRAG_SEED_POLICY", oneOf("seedPolicy", SeedPolicies),
		func(p *Params) *string { return &p.SeedPolicy }, func(d *Defaults) *string { return &d.SeedPolicy }),
}

// stringDefault reports whether field's GRAPHRAG_* variable holds a bare
// word that DefaultsFromEnv quotes as a JSON string before the field's
// rule reads it.
func stringDefault(field string) bool {
	switch field {
	case "namespace", "batching", "reduceMode", "tokenizer":
		return true
	}
	return slices.ContainsFunc(knobFields, func(f requestField) bool { return f.name == field })
}

// WithCallSettings is req with the run's settings for its stage: the
// prompt cache, and the service tier of map (which rating calls share,
// docs/contract.md#service-tiers) or reduce. Every model call of a run is
// built through it, so one deployed function serves runs of different
// settings.
func (p Params) WithCallSettings(req ModelRequest) ModelRequest {
	req.PromptCache = p.PromptCache
	req.ServiceTier = p.MapServiceTier
	if req.Stage == StageReduce {
		req.ServiceTier = p.ReduceServiceTier
	}
	return req
}

// ServiceTierTaker is a Model that sends ModelRequest.ServiceTier
// (docs/contract.md#service-tiers); a Model without it ignores the tier,
// and the run's diagnostics say so.
type ServiceTierTaker interface {
	TakesServiceTier() bool
}

// callSettingsReport fills a stage's usage with what became of the run's
// settings on model m: the prompt cache its calls ran with and why it is
// not the one asked for, and the service tier asked or why it was ignored.
func callSettingsReport(u *StageUsage, m Model, stage string, cache, tier string) {
	if pc, ok := m.(PromptCacher); ok {
		u.PromptCache, u.PromptCacheNote = pc.PromptCache(cache)
	}
	// A wrapper (TimeoutModel) is a PromptCacher whatever it wraps: no
	// setting is a model without cache points.
	if u.PromptCache == "" && cache != "" && cache != PromptCacheOff {
		u.PromptCacheNote = "the " + stage + " model takes no cache point (only Bedrock models do; OpenAI-compatible servers cache identical prefixes by themselves): promptCache " + cache + " is ignored"
	}
	if tier == "" {
		return
	}
	if tt, ok := m.(ServiceTierTaker); ok && tt.TakesServiceTier() {
		u.ServiceTier = tier
		return
	}
	u.ServiceTierNote = "the " + stage + " model has no service tiers (only Bedrock models do): " + stage + "ServiceTier " + tier + " is ignored"
}
