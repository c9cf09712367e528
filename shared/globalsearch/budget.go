package globalsearch

import "github.com/graphrag-global/graphrag-global/shared/tokens"

// SmallestTokenBudget is the least token budget whose prompt budget fits t's
// skeleton for query with reserve held back for the output: the fit test of
// docs/contract.md#batching and docs/contract.md#reduce-selection with empty content.
func (t Template) SmallestTokenBudget(query string, reserve int) int {
	return tokens.NewPrompt(t.Skeleton(query)).Tokens(tokens.Count{}) + reserve
}

// promptsFit checks both budgets against the skeletons they must hold
// (docs/contract.md#budgets). It needs nothing but the request, so a budget that
// cannot work is refused before any read or model call, instead of costing
// every map call and ending in no_results.
func promptsFit(p Params, prompts Prompts) error {
	if need := prompts.Map.SmallestTokenBudget(p.Query, p.MapOutputReserve); p.MapTokenBudget < need {
		return Errorf(KindInvalidInput,
			"map token budget cannot fit the map prompt: mapTokenBudget must be at least %d for this query (the prompt takes %d tokens before any content, plus mapOutputReserve %d)",
			need, need-p.MapOutputReserve, p.MapOutputReserve)
	}
	if need := prompts.Reduce.WithResponseType(p.ResponseType).SmallestTokenBudget(p.Query, p.ReduceOutputReserve); p.ReduceTokenBudget < need {
		return Errorf(KindInvalidInput,
			"reduce token budget cannot fit the reduce prompt: reduceTokenBudget must be at least %d for this query (the prompt takes %d tokens before any answer, plus reduceOutputReserve %d)",
			need, need-p.ReduceOutputReserve, p.ReduceOutputReserve)
	}
	return nil
}
