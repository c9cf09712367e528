package globalsearch

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

// Building a plan (docs/contract.md#prepare): the budgets checked, the
// map texts packed into batches and numbered, and the batch count and
// ceilings held, before prepare saves it.

// planWith is Plan over the communities pick selects (nil: those of
// p.CommunityLevel), for a run that made spent model calls already.
func (e *Engine) planWith(ctx context.Context, p Params, pick picker, spent int) (Plan, error) {
	skeleton := e.prompts().Map.Skeleton(p.Query)
	counter, err := e.counter(p)
	if err != nil {
		return Plan{}, err
	}
	// The budget check needs no data, so bad input costs no read (docs/contract.md#budgets).
	if err := batch.CheckSkeletonWith(counter, skeleton, p.MapPromptBudget()); err != nil {
		return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
	}
	if err := e.needPrices(p); err != nil {
		return Plan{}, err
	}
	// Before the index is read, and before a dynamic selection rates: a
	// record that cannot be read or is another question's refuses the run
	// before it spends (docs/contract.md#standing-questions).
	prev, err := e.standingBaseline(ctx, p)
	if err != nil {
		return Plan{}, err
	}
	in, plan, err := e.mapTexts(ctx, p, pick)
	if err != nil {
		return Plan{}, err
	}
	// The read may have fixed a namespace seed (docs/contract.md#seed-policy).
	p = plan.Params
	sources := in.allSources()
	packed, err := pack(counter, e.prompts().Map, p, in)
	if err != nil {
		var tooSmall *batch.TooSmallError
		if errors.As(err, &tooSmall) || errors.Is(err, batch.ErrPromptTooLarge) {
			return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
		}
		return Plan{}, err
	}
	if err := e.checkBatchCount(p, len(packed), spent); err != nil {
		return Plan{}, err
	}
	plan.Batches = planBatches(packed, sources, in.centralities())
	// The leaf plan a dynamic selection is measured against is never run,
	// so no ceiling applies to it, and the plan of the communities it
	// selected is held to them beside what rating spent (checkBatchCount,
	// checkSelectedCost).
	if spent == 0 {
		if err := e.checkCeilings(p, e.upFront(plan)); err != nil {
			return Plan{}, err
		}
	}
	if p.StandingQuery != "" {
		withTextHashes(plan.Batches, in.textHashes())
		plan.Changes = compareStanding(p, prev, plan.Batches)
	}
	plan.MapSkeleton = skeleton
	return plan, nil
}

// checkBatchCount refuses a plan of more batches than the state machine
// runs, or than the run's model calls allow beside the spent calls a
// dynamic selection made rating (docs/contract.md#plan-limits); a plan
// that spent nothing is held to its ceilings by checkCeilings.
func (e *Engine) checkBatchCount(p Params, batches, spent int) error {
	if spent == referencePlan {
		return nil
	}
	if e.MaxBatches > 0 && batches > e.MaxBatches {
		return Errorf(KindPlanTooLarge,
			"the plan needs %d map batches but the state machine runs at most %d: raise mapTokenBudget or choose a coarser communityLevel",
			batches, e.MaxBatches)
	}
	if spent > 0 && p.MaxModelCalls > 0 && spent+MostModelCalls(batches) > p.MaxModelCalls {
		return Errorf(KindPlanTooLarge,
			"the communities selected need %s, so up to %d model calls beside the %d rating calls made, but this run may make at most %d: raise maxModelCalls or ratingThreshold",
			Plural(batches, "map batch", "map batches"), MostModelCalls(batches), spent, p.MaxModelCalls)
	}
	return nil
}

// planBatches numbers the packed batches and records with each the sources
// of the communities it holds (docs/contract.md#citations) and their
// centrality (docs/contract.md#centrality). A community
// split over many batches is recorded once, with its first part, and a
// batch records at most maxSourceBytes of ids: a coarse community can cite
// more ids than one DynamoDB item holds.
func planBatches(packed []batch.Batch, sources map[string]Sources, centrality map[string]float64) []Batch {
	out := make([]Batch, len(packed))
	recorded := make(map[string]bool, len(sources))
	for i, b := range packed {
		out[i] = Batch{Index: i, CommunityIDs: b.IDs, EstimatedTokens: b.Tokens, Content: b.Content,
			Centrality: make(map[string]float64, len(b.IDs))}
		for _, id := range b.IDs {
			out[i].Centrality[id] = centrality[id]
		}
		room := maxSourceBytes
		for _, id := range b.IDs {
			if !recorded[id] {
				recorded[id] = true
				var src Sources
				src, room = sources[id].within(room)
				out[i].Sources = append(out[i].Sources, src)
			}
		}
	}
	return out
}

// MostModelCalls is the most model calls a plan of batches map batches can
// make (docs/contract.md#state-machine): every attempt of every batch and of the reduce. A plan
// with no batch reduces nothing, so it calls nothing.
func MostModelCalls(batches int) int {
	if batches == 0 {
		return 0
	}
	return MapAttempts*batches + ReduceAttempts
}

// shuffle is Fisher-Yates as docs/contract.md#batching writes it, over a PCG generator so
// a recorded seed replays the same order on every platform.
func shuffle[T any](items []T, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i := len(items) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		items[i], items[j] = items[j], items[i]
	}
}
