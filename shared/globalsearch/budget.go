package globalsearch

import "github.com/graphrag-global/graphrag-global/shared/batch"

// SmallestTokenBudget is the least token budget whose prompt budget fits t's
// skeleton for query with reserve held back for the output: the fit test of
// docs/contract.md#batching and docs/contract.md#reduce-selection with empty content.
func (t Template) SmallestTokenBudget(query string, reserve int) int {
	return batch.SmallestBudget(t.Skeleton(query)) + reserve
}

// reservesLeaveRoom refuses a token budget at or below its output reserve
// (docs/contract.md#budgets): nothing would be left for the prompt. The
// message names the budget, the reserve and the smallest budget that fits
// this query, as promptsFit does for a budget too small for its prompt.
func reservesLeaveRoom(p Params, prompts Prompts) error {
	stages := []struct {
		budgetField, reserveField string
		budget, reserve           int
		template                  Template
	}{
		{"mapTokenBudget", "mapOutputReserve", p.MapTokenBudget, p.MapOutputReserve, prompts.Map},
		{"reduceTokenBudget", "reduceOutputReserve", p.ReduceTokenBudget, p.ReduceOutputReserve, prompts.Reduce.WithResponseType(p.ResponseType)},
	}
	for _, s := range stages {
		if s.budget > s.reserve {
			continue
		}
		need := s.template.SmallestTokenBudget(p.Query, s.reserve)
		return Errorf(KindInvalidInput,
			"%s %d is not above %s %d, which leaves no room for the prompt: %s must be at least %d for this query (the prompt takes %d tokens before any content, plus %s %d)",
			s.budgetField, s.budget, s.reserveField, s.reserve, s.budgetField, need, need-s.reserve, s.reserveField, s.reserve)
	}
	return nil
}

// promptsFit checks both budgets against the skeletons they must hold
// (docs/contract.md#budgets). It needs nothing but the request, so a budget that
// cannot work is refused before any read or model call, instead of costing
// every map call and ending in no_results. The message says how large a
// budget would do.
func promptsFit(p Params, prompts Prompts) error {
	if err := batch.CheckSkeleton(prompts.Map.Skeleton(p.Query), p.MapPromptBudget()); err != nil {
		need := prompts.Map.SmallestTokenBudget(p.Query, p.MapOutputReserve)
		return Errorf(KindInvalidInput,
			"%w: mapTokenBudget must be at least %d for this query (the prompt takes %d tokens before any content, plus mapOutputReserve %d)",
			err, need, need-p.MapOutputReserve, p.MapOutputReserve)
	}
	reduce := prompts.Reduce.WithResponseType(p.ResponseType)
	if batch.CheckSkeleton(reduce.Skeleton(p.Query), p.ReducePromptBudget()) != nil {
		need := reduce.SmallestTokenBudget(p.Query, p.ReduceOutputReserve)
		return Errorf(KindInvalidInput,
			"reduce token budget cannot fit the reduce prompt: reduceTokenBudget must be at least %d for this query (the prompt takes %d tokens before any answer, plus reduceOutputReserve %d)",
			need, need-p.ReduceOutputReserve, p.ReduceOutputReserve)
	}
	return nil
}
