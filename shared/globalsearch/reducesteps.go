package globalsearch

// worstReduce is the tree rounds at their worst (worstRoundsOf) of a plan
// that runs, a dynamic selection's selected plan included: none in single
// mode or for a plan with no batch, which reduces nothing.
func (e *Engine) worstReduce(plan Plan) worstRounds {
	if len(plan.Batches) == 0 || reduceModeOf(plan.Params) != ReduceModeTree {
		return worstRounds{}
	}
	return e.worstRoundsOf(plan)
}

// checkReduceSteps refuses, before any model call, a tree plan whose
// rounds could pass what the deployed state machine runs
// (docs/contract.md#plan-limits): every group is an iteration of the
// execution's own inline Map, as every rating batch of a dynamic
// selection's ratingBatches is, so both share MaxReduceGroups; every
// round is a pass through the loop, held to MaxReduceRounds. Refused here,
// the run is recorded failed before it spends, not after its map.
func (e *Engine) checkReduceSteps(w worstRounds, ratingBatches int) error {
	if groups := w.calls(); e.MaxReduceGroups > 0 && groups > 0 && groups+ratingBatches > e.MaxReduceGroups {
		if ratingBatches > 0 {
			return Errorf(KindPlanTooLarge,
				"the reduce in rounds may need up to %s (every batch useful, every answer at its output reserve), which with the selection's %s passes the %d the state machine runs: raise reduceTokenBudget or mapTokenBudget, choose a coarser communityLevel, or reduceMode \"single\"",
				Plural(groups, "reduce group", "reduce groups"), Plural(ratingBatches, "rating batch", "rating batches"), e.MaxReduceGroups)
		}
		return Errorf(KindPlanTooLarge,
			"the reduce in rounds may need up to %s (every batch useful, every answer at its output reserve), but the state machine runs at most %d: raise reduceTokenBudget or mapTokenBudget, choose a coarser communityLevel, or reduceMode \"single\"",
			Plural(groups, "reduce group", "reduce groups"), e.MaxReduceGroups)
	}
	if rounds := len(w.groups); e.MaxReduceRounds > 0 && rounds > e.MaxReduceRounds {
		return Errorf(KindPlanTooLarge,
			"the reduce in rounds may need up to %d intermediate rounds (every batch useful, every answer at its output reserve), but the state machine runs at most %d: raise reduceTokenBudget, lower reduceOutputReserve, or reduceMode \"single\"",
			rounds, e.MaxReduceRounds)
	}
	return nil
}
