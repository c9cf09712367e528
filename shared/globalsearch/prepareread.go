package globalsearch

import (
	"context"
	"fmt"
)

// The reading side of prepare (docs/contract.md#selection,
// docs/contract.md#map-text): the namespace's summaries selected, its
// claims read beside them and filed under their leaves.

// readClaims reads snap's claims in the background. claims waits for the
// read; stop cancels it and waits for it, so no call outlives the caller's
// (a namespace or level found empty stops the read unused).
func readClaims(ctx context.Context, snap Snapshot) (claims func() ([]Claim, error), stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var all []Claim
	var err error
	go func() {
		defer close(done)
		all, err = snap.Claims(ctx)
	}()
	claims = func() ([]Claim, error) { <-done; return all, err }
	stop = func() { cancel(); <-done }
	return claims, stop
}

// loadSelection loads the namespace's summaries and selects those of the
// requested level (docs/contract.md#selection). Selecting none is no
// error: plan then says why (an empty namespace and the namespaces that
// exist, or the levels that do).
func (e *Engine) loadSelection(ctx context.Context, snap Snapshot, plan *Plan, pick picker) (*hierarchy, []*Summary, error) {
	p := plan.Params
	summaries, err := snap.Summaries(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("load summaries of %s: %w", p.Namespace, err)
	}
	if len(summaries) == 0 {
		plan.EmptyNamespace = true
		plan.AvailableNamespaces = e.namespaces(ctx, p.Namespace)
		return nil, nil, nil
	}
	h, err := newHierarchy(summaries)
	if err != nil {
		return nil, nil, err
	}
	if pick == nil {
		pick = func(h *hierarchy) []*Summary { return h.selectSummaries(p.CommunityLevel) }
	}
	selected := pick(h)
	plan.SummaryCount = len(selected)
	plan.Coverage.CommunitiesSelected, plan.Coverage.CommunitiesInNamespace = len(selected), len(summaries)
	if len(selected) == 0 && p.CommunityLevel >= 0 && p.Selection != SelectionDynamic {
		plan.AvailableLevels = h.levels()
	}
	return h, selected, nil
}

// groupClaims files the claims under their leaves, each leaf's by id
// (docs/contract.md#map-text), and counts the orphans: claims on a
// community that is not a leaf, which no map text holds.
func groupClaims(h *hierarchy, claims []Claim) (byLeaf map[string][]*Claim, orphans int) {
	byLeaf = map[string][]*Claim{}
	for i := range claims {
		c := &claims[i]
		if !h.isLeaf(c.CommunityID) {
			orphans++
			continue
		}
		byLeaf[c.CommunityID] = append(byLeaf[c.CommunityID], c)
	}
	for _, cs := range byLeaf {
		sortClaims(cs)
	}
	return byLeaf, orphans
}
