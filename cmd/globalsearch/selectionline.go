package main

import (
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// selectionLine is run's line about a dynamic selection
// (docs/contract.md#dynamic-selection): what it rated, with how many calls,
// and its map input against the plan of every leaf.
func selectionLine(s globalsearch.SelectionReport) string {
	line := fmt.Sprintf("dynamic selection: %s rated in %s (%s), %s selected; map input %d tokens in %s",
		count(s.Rated, "community", "communities"), count(s.RatingCalls, "rating call", "rating calls"),
		count(s.Rounds, "round", "rounds"), count(s.Selected, "community", "communities"),
		s.MapInputTokens, count(s.MapBatches, "batch", "batches"))
	if s.LeafMapInputTokens > 0 {
		line += fmt.Sprintf(", against %d in %s for every leaf (%.0f%%)", s.LeafMapInputTokens,
			count(s.LeafMapBatches, "batch", "batches"), 100*float64(s.MapInputTokens)/float64(s.LeafMapInputTokens))
	}
	if s.NotRated > 0 || s.FailedRatingBatches > 0 {
		line += fmt.Sprintf("; %d not rated (%s failed)", s.NotRated, count(s.FailedRatingBatches, "rating batch", "rating batches"))
	}
	return line
}
