package main

import (
	"fmt"
	"io"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// planCost is what `plan` says a plan may cost (docs/contract.md#cost):
// per stage with one attempt per call and every output reserve spent, and
// the worst case with every retry, which maxCostUsd is held to.
type planCost struct {
	Map       float64 `json:"mapUsd"`
	Reduce    float64 `json:"reduceUsd"`
	Total     float64 `json:"totalUsd"`
	WorstCase float64 `json:"worstCaseUsd"`
}

// newPlanCost prices out at prices; nil without prices.
func newPlanCost(prices *globalsearch.Prices, out planOutput, p globalsearch.Params) *planCost {
	if prices == nil {
		return nil
	}
	// A dynamic selection's rating calls are map-stage calls of at most a
	// full map prompt each, replying within the map reserve
	// (docs/contract.md#dynamic-selection).
	ratingBatches := out.Selection.MostRatingCalls / globalsearch.RatingAttempts
	mapInput := out.EstimatedMapInputTokens + ratingBatches*p.MapPromptBudget()
	once := prices.PlanCost(p, mapInput, out.BatchCount+ratingBatches, 1, 1)
	worst := prices.WorstCase(p, mapInput, out.BatchCount+ratingBatches)
	return &planCost{Map: once.Map, Reduce: once.Reduce, Total: once.Total(), WorstCase: worst.Total()}
}

// printAutoLevel shows the ladder of communityLevel "auto", finest first,
// and the rung it chose.
func printAutoLevel(w io.Writer, choice *globalsearch.LevelChoice) {
	if choice == nil {
		return
	}
	fmt.Fprintf(w, "level auto under %d map input tokens: level %s\n", choice.MaxMapInputTokens, choice.LevelUsed)
	for _, r := range choice.Ladder {
		mark := " "
		if r.Level == choice.LevelUsed {
			mark = "*"
		}
		what := "every leaf"
		if r.Level != globalsearch.LeafLevel {
			what = fmt.Sprintf("level %s and the leaves above it", r.Level)
		}
		fmt.Fprintf(w, " %s %-5s %s, %d tokens (%s)\n", mark, r.Level, count(r.Summaries, "summary", "summaries"), r.MapInputTokens, what)
	}
}
