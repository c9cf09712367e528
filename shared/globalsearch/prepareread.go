package globalsearch

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// The reading side of prepare (docs/contract.md#selection,
// docs/contract.md#map-text): one version of the namespace read, its
// summaries selected, its claims read beside them and filed under their
// leaves, and the chunks they cite read once each.

// mapTexts reads one version of the namespace from start to end
// (docs/contract.md#namespace-versions): when the namespace was replaced
// while it read, what it read may be half deleted, so it reads the new
// version once more, and refuses as throttled (the state machine retries)
// a namespace replaced during both reads.
func (e *Engine) mapTexts(ctx context.Context, p Params, pick picker) (mapInputs, Plan, error) {
	for attempt := 1; ; attempt++ {
		snap, err := e.Index.Open(ctx, p.Namespace)
		if err != nil {
			return mapInputs{}, Plan{Params: p}, fmt.Errorf("open namespace %s: %w", p.Namespace, err)
		}
		in, plan, err := e.mapTextsOf(ctx, snap, p, pick)
		intact, checkErr := snap.Intact(ctx)
		switch {
		case checkErr != nil && err == nil:
			return mapInputs{}, plan, fmt.Errorf("check the version of namespace %s: %w", p.Namespace, checkErr)
		case checkErr != nil || intact:
			return in, plan, err
		case attempt == 2:
			return mapInputs{}, plan, Errorf(KindThrottled, "namespace %s was replaced twice while this search read it: try again", p.Namespace)
		}
	}
}

// mapTextsOf gathers what the map text of every selected summary is built
// from (docs/contract.md#selection, docs/contract.md#map-text), in id
// order: it loads and selects the summaries, groups the claims by leaf,
// reads the chunks they cite and sizes the texts. The plan it returns
// holds what the index said on the way (orphan claims, missing chunks, an
// empty namespace or level).
func (e *Engine) mapTextsOf(ctx context.Context, snap Snapshot, p Params, pick picker) (mapInputs, Plan, error) {
	plan := Plan{Params: p}
	// Claims do not depend on the summaries, so their reads (on DynamoDB a
	// chain of Query pages each) overlap; only the chunks must wait for the
	// claims that cite them.
	claims, stopClaims := readClaims(ctx, snap)
	defer stopClaims()
	h, selected, err := e.loadSelection(ctx, snap, &plan, pick)
	if err != nil || len(selected) == 0 {
		return mapInputs{}, plan, err
	}
	all, err := claims()
	if err != nil {
		return mapInputs{}, plan, fmt.Errorf("load claims of %s: %w", p.Namespace, err)
	}
	in := mapInputs{selected: selected, leavesOf: make([][]string, len(selected))}
	spans := h.leafSpans()
	for i, s := range selected {
		in.leavesOf[i] = spans.of(s.ID)
	}
	in.claimsByLeaf, plan.OrphanClaims = groupClaims(h, all)
	if plan.MissingChunks, err = in.readCited(ctx, snap); err != nil {
		return mapInputs{}, plan, fmt.Errorf("load cited chunks of %s: %w", p.Namespace, err)
	}
	if p.CommunityLevel == AutoLevel {
		if err := e.chooseLevel(&in, h, spans, p, &plan); err != nil {
			return mapInputs{}, plan, err
		}
	}
	if err := e.sizeMapTexts(p, &in); err != nil {
		return mapInputs{}, plan, err
	}
	in.inputCoverage(&plan.Coverage)
	return in, plan, nil
}

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
	withNamespaceSeed(plan, snap, summaries)
	if pick == nil {
		pick = func(h *hierarchy) []*Summary { return h.selectSummaries(p.CommunityLevel) }
	}
	selected := pick(h)
	plan.SummaryCount = len(selected)
	plan.GraphRAGLevel = splitOf(p.CommunityLevel, selected)
	plan.Coverage.CommunitiesSelected, plan.Coverage.CommunitiesInNamespace = len(selected), len(summaries)
	if _, numbered := p.CommunityLevel.Number(); len(selected) == 0 && numbered && p.Selection != SelectionDynamic {
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

// readCited reads the chunks the map texts' claims cite, each once, in
// first-cited order, and counts the cited ids that name no chunk.
func (m *mapInputs) readCited(ctx context.Context, snap Snapshot) (missing int, err error) {
	cited := m.citedIDs()
	m.chunkText, m.chunkDoc, m.chunkUnit = map[string]string{}, map[string]string{}, map[string]string{}
	if len(cited) > 0 {
		chunks, err := snap.Chunks(ctx, cited)
		if err != nil {
			return 0, err
		}
		for _, c := range chunks {
			m.chunkText[c.ID] = c.Text
			if c.DocumentID != "" {
				m.chunkDoc[c.ID] = c.DocumentID
			}
			if c.TextUnitID != "" {
				m.chunkUnit[c.ID] = c.TextUnitID
			}
		}
	}
	for _, id := range cited {
		if _, ok := m.chunkText[id]; !ok {
			missing++
		}
	}
	return missing, nil
}

// citedIDs lists the chunk ids the selected summaries' claims cite, each
// once, in first-cited order.
func (m *mapInputs) citedIDs() []string {
	var cited []string
	seen := map[string]bool{}
	for i := range m.selected {
		for c := range m.claims(i) {
			for _, id := range c.SourceChunkIDs {
				if !seen[id] {
					seen[id] = true
					cited = append(cited, id)
				}
			}
		}
	}
	return cited
}

func sortClaims(cs []*Claim) {
	slices.SortFunc(cs, func(a, b *Claim) int { return strings.Compare(a.ID, b.ID) })
}

// maxListedNamespaces bounds the namespaces an empty search lists: enough
// to spot a typo, small enough for a status line.
const maxListedNamespaces = 50

// namespaces lists the other namespaces of the index when it can say so
// cheaply (the empty one may still hold claims or chunks, which is no help
// to list). The list only explains an empty search, so failing to read it
// does not fail the search.
func (e *Engine) namespaces(ctx context.Context, empty string) []string {
	lister, ok := e.Index.(NamespaceLister)
	if !ok {
		return nil
	}
	names, err := lister.Namespaces(ctx)
	if err != nil {
		e.logger().LogAttrs(ctx, slogError, "list namespaces failed", slog.String("error", err.Error()))
		return nil
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == empty })
	slices.Sort(names)
	return names[:min(len(names), maxListedNamespaces)]
}
