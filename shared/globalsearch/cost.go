package globalsearch

import (
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// Price is what one model charges, in USD per 1,000 tokens.
type Price struct {
	In  float64 `json:"inUsdPer1k"`
	Out float64 `json:"outUsdPer1k"`
	// CacheRead, CacheWrite5m and CacheWrite1h are the prompt cache's
	// prices as multiples of In (docs/contract.md#prompt-cache); 0 stands
	// for Claude's on Bedrock: 0.1, 1.25 and 2.
	CacheRead    float64 `json:"cacheReadRatio,omitempty"`
	CacheWrite5m float64 `json:"cacheWrite5mRatio,omitempty"`
	CacheWrite1h float64 `json:"cacheWrite1hRatio,omitempty"`
}

// Claude's prompt cache prices on Bedrock, as multiples of the input
// price (docs/contract.md#prompt-cache).
const (
	DefaultCacheReadRatio    = 0.1
	DefaultCacheWrite5mRatio = 1.25
	DefaultCacheWrite1hRatio = 2
)

// Prices are the prices of the map and the reduce model
// (docs/contract.md#cost). The engine holds them when a deployment or the
// CLI sets them; without them a run reports no cost and refuses maxCostUsd.
type Prices struct {
	Map    Price `json:"map"`
	Reduce Price `json:"reduce"`
}

// StageCost is what a plan or a run costs, per stage, in USD.
type StageCost struct {
	Map    float64 `json:"mapUsd"`
	Reduce float64 `json:"reduceUsd"`
}

// Total is the cost of both stages.
func (c StageCost) Total() float64 { return c.Map + c.Reduce }

// PlanCost is what a plan of batches map batches holding mapInputTokens
// estimated tokens may cost (docs/contract.md#cost): every map call with
// its whole output reserve, the reduce with its whole prompt budget and
// reserve, each map call made mapAttempts times and the reduce
// reduceAttempts times. A plan with no batch calls no model
// (MostModelCalls), so it costs nothing.
func (pr Prices) PlanCost(p Params, mapInputTokens, batches, mapAttempts, reduceAttempts int) StageCost {
	if batches == 0 {
		return StageCost{}
	}
	return StageCost{
		Map:    float64(mapAttempts) * pr.Map.cost(mapInputTokens, batches*p.MapOutputReserve),
		Reduce: float64(reduceAttempts) * pr.Reduce.cost(p.ReducePromptBudget(), p.ReduceOutputReserve),
	}
}

// WorstCase is PlanCost with every attempt of docs/contract.md#state-machine
// made: what the cost ceiling is held to, as the model-call ceiling is held
// to MostModelCalls.
func (pr Prices) WorstCase(p Params, mapInputTokens, batches int) StageCost {
	return pr.PlanCost(p, mapInputTokens, batches, MapAttempts, ReduceAttempts)
}

// UsageCost is what the model-reported tokens of a run's stages cost.
func (pr Prices) UsageCost(mapUsage, reduceUsage StageUsage) StageCost {
	return StageCost{
		Map:    pr.Map.usageCost(mapUsage),
		Reduce: pr.Reduce.usageCost(reduceUsage),
	}
}

// usageCost prices a stage's reported tokens: the uncached input at In,
// the cache's reads and writes at their multiples of it. The plan's worst
// case (PlanCost) assumes no hit, so it prices every token at In.
func (p Price) usageCost(u StageUsage) float64 {
	read, write := u.CacheReadInputTokens, u.CacheWriteInputTokens
	readRatio, writeRatio := cmp.Or(p.CacheRead, DefaultCacheReadRatio), cmp.Or(p.CacheWrite5m, DefaultCacheWrite5mRatio)
	if u.PromptCache == "1h" {
		writeRatio = cmp.Or(p.CacheWrite1h, DefaultCacheWrite1hRatio)
	}
	uncached := max(u.InputTokens-read-write, 0)
	return p.cost(uncached, u.OutputTokens) + (float64(read)*readRatio+float64(write)*writeRatio)/1000*p.In
}

func (p Price) cost(in, out int) float64 {
	return float64(in)/1000*p.In + float64(out)/1000*p.Out
}

// RatingCost is what a dynamic selection's rating calls spent, priced as
// map-stage calls (docs/contract.md#dynamic-selection). A model that reports
// no usage leaves each call priced as the most it could be: a full map
// prompt and its whole output reserve.
func (pr Prices) RatingCost(p Params, r SelectionReport) float64 {
	in, out := r.RatingInputTokens, r.RatingOutputTokens
	if in == 0 && r.RatingCalls > 0 {
		in, out = r.RatingCalls*p.MapPromptBudget(), r.RatingCalls*p.MapOutputReserve
	}
	return pr.Map.cost(in, out)
}

// checkSelectedCost refuses the plan of the communities a dynamic
// selection chose when its worst case and what the rating calls spent
// pass the run's maxCostUsd, before any map call.
func (e *Engine) checkSelectedCost(p Params, plan Plan, report SelectionReport) error {
	if p.MaxCostUSD <= 0 || e.Prices == nil {
		return nil
	}
	spent := e.Prices.RatingCost(p, report)
	worst := e.Prices.WorstCase(p, plan.MapInputTokens(), len(plan.Batches))
	if spent+worst.Total() <= p.MaxCostUSD {
		return nil
	}
	return Errorf(KindPlanTooLarge,
		"the communities selected may cost $%s (map $%s over %s with every retry, reduce $%s) beside the $%s the rating calls spent, but this run may cost at most $%s: raise maxCostUsd or ratingThreshold",
		usdCost(worst.Total()), usdCost(worst.Map), Plural(len(plan.Batches), "map batch", "map batches"), usdCost(worst.Reduce), usdCost(spent), usd(p.MaxCostUSD))
}

// needPrices refuses a cost ceiling the engine cannot price, before any
// read: without prices every plan would cost $0 and pass it unseen.
func (e *Engine) needPrices(p Params) error { return NeedPrices(p, e.Prices) }

// NeedPrices is the rule of docs/contract.md#cost-ceiling that a ceiling
// needs prices, for an edge that holds the prices without planning (the
// HTTP API refuses such a request before it stores or starts anything).
func NeedPrices(p Params, prices *Prices) error {
	if p.MaxCostUSD > 0 && prices == nil {
		return Errorf(KindInvalidInput,
			"maxCostUsd %s needs the models' prices, and none are set: set the deployment's MapPriceIn, MapPriceOut, ReducePriceIn and ReducePriceOut (the CLI's --price-in and --price-out)",
			usd(p.MaxCostUSD))
	}
	return nil
}

// usd writes an amount of dollars as short as it reads exactly: a ceiling
// as the request gave it.
func usd(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// usdCost writes a computed cost to a millionth of a dollar, which no
// price per 1,000 tokens needs more than.
func usdCost(v float64) string { return usd(math.Round(v*1e6) / 1e6) }

var errUSD = errors.New("maxCostUsd must be a positive number of US dollars")

// parseUSD reads a positive, finite JSON number.
func parseUSD(raw json.RawMessage) (float64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s[0] == '"' {
		return 0, errUSD
	}
	var v float64
	if err := json.Unmarshal([]byte(s), &v); err != nil || s == "null" || !(v > 0) || math.IsInf(v, 0) {
		return 0, errUSD
	}
	return v, nil
}

// ceilingsHold applies the rules of the request's ceilings that need no
// data: "auto" needs a token ceiling to choose under
// (docs/contract.md#auto-level), and a request may lower the deployment's
// cost ceiling, never raise it (docs/contract.md#cost-ceiling).
func ceilingsHold(p Params, d Defaults) error {
	if p.CommunityLevel == AutoLevel && p.MaxMapInputTokens == 0 {
		return Errorf(KindInvalidInput,
			`communityLevel "auto" needs maxMapInputTokens, the most estimated map input tokens it may choose (or the deployment's GRAPHRAG_MAX_MAP_INPUT_TOKENS)`)
	}
	if d.MaxCostUSD > 0 && p.MaxCostUSD > d.MaxCostUSD {
		return Errorf(KindInvalidInput,
			"maxCostUsd %s is above this deployment's ceiling of $%s per run: ask for at most %s, or raise the deployment's MaxCostUsd",
			usd(p.MaxCostUSD), usd(d.MaxCostUSD), usd(d.MaxCostUSD))
	}
	return nil
}
