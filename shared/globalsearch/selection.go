package globalsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SelectionDynamic is the selection value that rates communities top-down
// instead of taking one level (docs/contract.md#dynamic-selection).
const SelectionDynamic = "dynamic"

// DefaultRatingThreshold is the score from which a rated community counts
// relevant when the request names none: 2 of 5 keeps the communities a
// rater finds somewhat related and drops those it finds merely adjacent.
const DefaultRatingThreshold = 2

const (
	selectionRule       = `selection must be "level" or "dynamic"`
	ratingThresholdRule = "ratingThreshold must be an integer from 1 to 5"
)

// SelectionReport is what dynamic selection did (docs/contract.md#dynamic-selection):
// how many communities it rated, with how many calls, what it chose, and
// the map input of its plan against that of the plan of every leaf. A dry
// run fills only the plan-time figures (MostRatingCalls, the leaf plan's).
type SelectionReport struct {
	Threshold int `json:"threshold"`
	// Rounds are the rounds of rating calls: the roots, then the children
	// of the communities each round found relevant.
	Rounds      int `json:"rounds"`
	Rated       int `json:"rated"`
	RatingCalls int `json:"ratingCalls"`
	// NotRated counts the communities a round put up for rating that got no
	// score: left out of the reply, or in a batch whose attempts all failed.
	NotRated            int `json:"notRated"`
	UnknownIDs          int `json:"unknownIds"`
	FailedRatingBatches int `json:"failedRatingBatches"`
	Selected            int `json:"selected"`
	RatingInputTokens   int `json:"ratingInputTokens"`
	RatingOutputTokens  int `json:"ratingOutputTokens"`
	// MostRatingCalls is the worst case: every community relevant, every
	// rating batch tried twice. MostRatingInputTokens is the estimated
	// input of those batches, once each: what the cost ceiling prices
	// them at (docs/contract.md#worst-case). A plan stored before it was
	// recorded has none.
	MostRatingCalls       int `json:"mostRatingCalls"`
	MostRatingInputTokens int `json:"mostRatingInputTokens,omitempty"`
	MapInputTokens        int `json:"mapInputTokens"`
	MapBatches            int `json:"mapBatches"`
	// LeafMapInputTokens and LeafMapBatches are the plan of every leaf,
	// what selection by level would have mapped; both 0 when that plan is
	// beyond the deployment's limits.
	LeafMapInputTokens int `json:"leafMapInputTokens"`
	LeafMapBatches     int `json:"leafMapBatches"`
}

func parseSelection(raw json.RawMessage) (string, error) {
	var s string
	if string(raw) == "null" || json.Unmarshal(raw, &s) != nil {
		return "", errors.New(selectionRule)
	}
	switch s {
	case "level":
		// The default, stored as it always was, so that naming it is the
		// same request as leaving it out (docs/contract.md#query-ids).
		return "", nil
	case SelectionDynamic:
		return s, nil
	}
	return "", errors.New(selectionRule)
}

// checkSelection applies the rules between the selection fields and the
// level (docs/contract.md#dynamic-selection): a threshold only with dynamic
// selection, and no level but "leaf" with it, since it descends to the
// leaves itself.
func checkSelection(fields map[string]json.RawMessage, p *Params) error {
	if p.Selection != SelectionDynamic {
		if _, ok := fields["ratingThreshold"]; ok {
			return Errorf(KindInvalidInput, `ratingThreshold applies only to selection "dynamic"`)
		}
		return nil
	}
	if _, ok := fields["communityLevel"]; ok && p.CommunityLevel != LeafLevel {
		return Errorf(KindInvalidInput, `selection "dynamic" chooses the communities itself, down to the leaves: leave communityLevel out or make it "leaf"`)
	}
	p.CommunityLevel = LeafLevel
	if p.RatingThreshold == 0 {
		p.RatingThreshold = DefaultRatingThreshold
	}
	return nil
}

// ratingThreshold is p's threshold, the default for Params built in Go
// without one (ParseRequest always sets it for a dynamic selection).
func (p Params) ratingThreshold() int {
	if p.RatingThreshold == 0 {
		return DefaultRatingThreshold
	}
	return p.RatingThreshold
}

// picker chooses the summaries a plan maps from the namespace's forest.
type picker func(h *hierarchy) []*Summary

// pickIDs picks the summaries named in ids that exist and are not blank,
// by id as every selection is ordered (docs/contract.md#selection).
func pickIDs(ids map[string]bool) picker {
	return func(h *hierarchy) []*Summary {
		var out []*Summary
		for id := range ids {
			if s := h.byID[id]; s != nil && strings.TrimSpace(s.Summary) != "" {
				out = append(out, s)
			}
		}
		slices.SortFunc(out, func(a, b *Summary) int { return strings.Compare(a.ID, b.ID) })
		return out
	}
}

// rateable reports whether a community can be rated: one with a blank
// summary has nothing to judge it by, and no plan would map it.
func (h *hierarchy) rateable(id string) bool {
	return strings.TrimSpace(h.byID[id].Summary) != ""
}

// roots are the communities without a parent, by id.
func (h *hierarchy) roots() []string {
	var out []string
	for id, s := range h.byID {
		if s.ParentCommunityID == "" {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// rateableUnder replaces every community in ids that cannot be rated by the
// rateable communities under it, so that a blank summary passes the
// rating on to its children instead of cutting its subtree off.
func (h *hierarchy) rateableUnder(ids []string, out []string) []string {
	for _, id := range ids {
		if h.rateable(id) {
			out = append(out, id)
			continue
		}
		out = h.rateableUnder(h.children[id], out)
	}
	return out
}

// dynamicSelection is the rule of docs/contract.md#dynamic-selection over
// the scores: from each relevant root, descend into the relevant
// children; a relevant community none of whose children is relevant is
// selected itself.
func (h *hierarchy) dynamicSelection(relevant func(id string) bool) map[string]bool {
	selected := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		descended := false
		for _, k := range h.rateableUnder(h.children[id], nil) {
			if relevant(k) {
				visit(k)
				descended = true
			}
		}
		if !descended {
			selected[id] = true
		}
	}
	for _, r := range h.rateableUnder(h.roots(), nil) {
		if relevant(r) {
			visit(r)
		}
	}
	return selected
}

// InputTokens is what the selection's run sent before the reduce: the
// rating calls' input and the map input, the figure docs/contract.md#dynamic-selection
// sets against the plan of every leaf.
func (s SelectionReport) InputTokens() int { return s.RatingInputTokens + s.MapInputTokens }

// Line is run's line about a dynamic selection
// (docs/contract.md#dynamic-selection): what it rated, with how many calls,
// and its rating and map input against the plan of every leaf.
func (s SelectionReport) Line() string {
	line := fmt.Sprintf("dynamic selection: %s rated in %s (%s), %s selected; rating input %d tokens + map input %d tokens in %s = %d",
		Plural(s.Rated, "community", "communities"), Plural(s.RatingCalls, "rating call", "rating calls"),
		Plural(s.Rounds, "round", "rounds"), Plural(s.Selected, "community", "communities"),
		s.RatingInputTokens, s.MapInputTokens, Plural(s.MapBatches, "batch", "batches"), s.InputTokens())
	if s.LeafMapInputTokens > 0 {
		line += fmt.Sprintf(", against %d map input tokens in %s for every leaf (%.0f%%)", s.LeafMapInputTokens,
			Plural(s.LeafMapBatches, "batch", "batches"), 100*float64(s.InputTokens())/float64(s.LeafMapInputTokens))
	}
	if s.NotRated > 0 || s.FailedRatingBatches > 0 {
		line += fmt.Sprintf("; %d not rated (%s failed)", s.NotRated, Plural(s.FailedRatingBatches, "rating batch", "rating batches"))
	}
	return line
}
