package globalsearch

// WorstCase is the most a run may spend before its ceilings hold it again:
// every attempt of every call made, every output reserve spent
// (docs/contract.md#worst-case). maxModelCalls refuses a plan whose Calls
// pass it and maxCostUsd one whose CostUSD does, and the plan report
// prints the same value, so the figure a plan shows is the one its
// ceiling check refuses at. A dynamic selection's rating calls are
// map-stage calls, priced as such, but counted apart.
type WorstCase struct {
	RatingCalls int `json:"ratingCalls,omitempty"`
	MapCalls    int `json:"mapCalls"`
	// ReduceCalls are the final call's attempts and, in tree mode, every
	// attempt at every group of ReduceRounds - 1 intermediate rounds
	// (docs/contract.md#reduce-rounds); ReduceRounds and the reduce
	// tokens are stated only when there are such rounds.
	ReduceCalls        int `json:"reduceCalls"`
	ReduceRounds       int `json:"reduceRounds,omitempty"`
	ReduceInputTokens  int `json:"reduceInputTokens,omitempty"`
	ReduceOutputTokens int `json:"reduceOutputTokens,omitempty"`
	// The costs are 0 without prices.
	RatingUSD float64 `json:"ratingUsd,omitempty"`
	MapUSD    float64 `json:"mapUsd,omitempty"`
	ReduceUSD float64 `json:"reduceUsd,omitempty"`
}

// Calls is every model call of the worst case.
func (w WorstCase) Calls() int { return w.RatingCalls + w.MapCalls + w.ReduceCalls }

// CostUSD is what the worst case costs.
func (w WorstCase) CostUSD() float64 { return w.RatingUSD + w.MapUSD + w.ReduceUSD }

// sends is what a run sends before its ceilings hold it again: the rating
// batches of a dynamic selection and the map batches, with the estimated
// tokens of their prompts. The reduce follows any map batch.
type sends struct {
	ratingBatches, ratingTokens int
	mapBatches, mapTokens       int
	// rounds are a tree reduce's intermediate rounds (Engine.upFront).
	rounds worstRounds
}

// upFront is what a plan sends as the ceilings hold it before any model
// call (docs/contract.md#worst-case): its map batches, or, for a dynamic
// selection's dry run, what its selection report says rating may send
// (sends of SelectionReport).
func (pl Plan) upFront() sends {
	if pl.Selection != nil {
		return pl.Selection.upFront(pl.Params)
	}
	return sends{mapBatches: len(pl.Batches), mapTokens: pl.MapInputTokens()}
}

// upFront is what a dynamic selection may send before the communities it
// selects are planned (docs/contract.md#dynamic-selection): every rateable
// community rated, then the least map stage that can follow, one batch of a
// full map prompt and the reduce. Those selected are held to the ceilings
// again, beside what rating spent (checkBatchCount, checkSelectedCost), so
// the plan of every leaf is a reference here, not a part of the worst case:
// holding it up front would refuse the searches dynamic selection is for.
func (r SelectionReport) upFront(p Params) sends {
	return sends{ratingBatches: r.mostRatingBatches(), ratingTokens: r.MostRatingInputTokens,
		mapBatches: 1, mapTokens: p.MapPromptBudget()}
}

// mostRatingBatches is how many rating batches MostRatingCalls tries: the
// figure the state machine's limits and the inline Map's history count
// (docs/contract.md#plan-limits).
func (r SelectionReport) mostRatingBatches() int { return r.MostRatingCalls / RatingAttempts }

// made is what s spends with each rating batch tried ratingAttempts times,
// each map batch mapAttempts times and the reduce reduceAttempts times,
// priced at prices (none: no cost).
func (s sends) made(prices *Prices, p Params, ratingAttempts, mapAttempts, reduceAttempts int) WorstCase {
	w := WorstCase{RatingCalls: ratingAttempts * s.ratingBatches}
	// Each intermediate group is a reduce call of its own, attempted as
	// often as a map batch (ReduceGroupAttempts is MapAttempts).
	groupCalls := 0
	if s.mapBatches > 0 {
		// A plan with no batch reduces nothing (MostModelCalls).
		groupCalls = mapAttempts * s.rounds.calls()
		w.MapCalls, w.ReduceCalls = mapAttempts*s.mapBatches, reduceAttempts+groupCalls
	}
	if len(s.rounds.groups) > 0 && s.mapBatches > 0 {
		w.ReduceRounds = len(s.rounds.groups) + 1
		w.ReduceInputTokens, w.ReduceOutputTokens = w.ReduceCalls*p.ReducePromptBudget(), w.ReduceCalls*p.ReduceOutputReserve
	}
	if prices != nil {
		w.RatingUSD = float64(ratingAttempts) * prices.Map.cost(s.ratingTokens, s.ratingBatches*p.MapOutputReserve)
		c := prices.PlanCost(p, s.mapTokens, s.mapBatches, mapAttempts, reduceAttempts)
		w.MapUSD, w.ReduceUSD = c.Map, c.Reduce
		if groupCalls > 0 {
			w.ReduceUSD += float64(groupCalls) * prices.Reduce.cost(p.ReducePromptBudget(), p.ReduceOutputReserve)
		}
	}
	return w
}

// worstCase is s with every attempt of docs/contract.md#state-machine made.
func (s sends) worstCase(prices *Prices, p Params) WorstCase {
	return s.made(prices, p, RatingAttempts, MapAttempts, ReduceAttempts)
}

// checkCeilings refuses, before any model call, a run whose worst case
// over s passes its maxModelCalls or its maxCostUsd
// (docs/contract.md#model-call-ceiling, docs/contract.md#cost-ceiling). It
// is the one check of a plan's worst case: the plan report prints the
// same s.worstCase.
func (e *Engine) checkCeilings(p Params, s sends) error {
	w := s.worstCase(e.Prices, p)
	if p.MaxModelCalls > 0 && w.Calls() > p.MaxModelCalls {
		if w.RatingCalls > 0 {
			return Errorf(KindPlanTooLarge,
				"dynamic selection may make up to %d rating calls (every community relevant, %d attempts per rating batch), which with one map batch and the reduce passes this run's %d model calls: raise maxModelCalls (up to the deployment's MaxModelCalls) or mapTokenBudget, or select by communityLevel",
				w.RatingCalls, RatingAttempts, p.MaxModelCalls)
		}
		if w.ReduceRounds > 0 {
			return Errorf(KindPlanTooLarge,
				"the plan needs %s and up to %s, so up to %d model calls (%d attempts per batch and per reduce group, %d for the final reduce), but this run may make at most %d: raise maxModelCalls (up to the deployment's MaxModelCalls, which bounds it) or mapTokenBudget, choose a coarser communityLevel, or reduceMode \"single\"",
				Plural(s.mapBatches, "map batch", "map batches"), Plural(w.ReduceRounds, "reduce round", "reduce rounds"), w.Calls(), MapAttempts, ReduceAttempts, p.MaxModelCalls)
		}
		return Errorf(KindPlanTooLarge,
			"the plan needs %s, so up to %d model calls (%d attempts per batch, %d for the reduce), but this run may make at most %d: raise maxModelCalls (up to the deployment's MaxModelCalls, which bounds it) or mapTokenBudget, or choose a coarser communityLevel",
			Plural(s.mapBatches, "map batch", "map batches"), w.Calls(), MapAttempts, ReduceAttempts, p.MaxModelCalls)
	}
	if p.MaxCostUSD <= 0 || e.Prices == nil || w.CostUSD() <= p.MaxCostUSD {
		return nil
	}
	if w.RatingCalls > 0 {
		return Errorf(KindPlanTooLarge,
			"dynamic selection may cost $%s rating (every community relevant, %d attempts per rating batch), which with one map batch and the reduce ($%s) passes this run's $%s: raise maxCostUsd, or select by communityLevel",
			usdCost(w.RatingUSD), RatingAttempts, usdCost(w.MapUSD+w.ReduceUSD), usd(p.MaxCostUSD))
	}
	return Errorf(KindPlanTooLarge,
		"the plan's worst case costs $%s (map $%s over %s with every retry, reduce $%s), but this run may cost at most $%s: raise maxCostUsd, choose a coarser communityLevel or communityLevel \"auto\" with a lower maxMapInputTokens, or a cheaper map model",
		usdCost(w.CostUSD()), usdCost(w.MapUSD), Plural(s.mapBatches, "map batch", "map batches"), usdCost(w.ReduceUSD), usd(p.MaxCostUSD))
}
