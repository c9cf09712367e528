package globalsearch

import (
	"fmt"
	"slices"
	"strings"
)

// hierarchy is the community forest of a namespace (docs/contract.md#index).
type hierarchy struct {
	byID     map[string]*Summary
	children map[string][]string // sorted by id
}

// newHierarchy links the summaries and checks the forest: a parent that does
// not exist, a cycle, or a child whose level is not greater than its
// parent's (docs/contract.md#hierarchy) is a corrupt index naming the ids. Walking parent
// links with a visit state per node finds every cycle in linear time, so a
// corrupt index can never hang the search. Strictly growing levels make the
// summaries of one level disjoint subtrees, so no leaf's claims are repeated
// within one plan; each id in the messages is cut (Echo) and each list
// capped (ListCapped), so a huge corrupt index cannot produce a huge error.
func newHierarchy(summaries []Summary) (*hierarchy, error) {
	h := &hierarchy{byID: make(map[string]*Summary, len(summaries)), children: map[string][]string{}}
	for i := range summaries {
		h.byID[summaries[i].ID] = &summaries[i]
	}
	var missing []string
	for i := range summaries {
		s := &summaries[i]
		if s.ParentCommunityID == "" {
			continue
		}
		if _, ok := h.byID[s.ParentCommunityID]; !ok {
			missing = append(missing, Echo(s.ID)+" -> "+Echo(s.ParentCommunityID))
			continue
		}
		h.children[s.ParentCommunityID] = append(h.children[s.ParentCommunityID], s.ID)
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, Errorf(KindCorruptIndex, "corrupt index: parentCommunityId names no summary: %s", ListCapped(missing, ", "))
	}
	for _, kids := range h.children {
		slices.Sort(kids)
	}
	if cycle := h.findCycle(); cycle != nil {
		for i, id := range cycle[:min(len(cycle), MaxListed)] {
			cycle[i] = Echo(id)
		}
		return nil, Errorf(KindCorruptIndex, "corrupt index: parentCommunityId links form a cycle: %s", ListCapped(cycle, " -> "))
	}
	var flat []string
	for i := range summaries {
		s := &summaries[i]
		if s.ParentCommunityID == "" {
			continue
		}
		if parent := h.byID[s.ParentCommunityID]; s.Level <= parent.Level {
			flat = append(flat, fmt.Sprintf("%s (level %d) under %s (level %d)", Echo(s.ID), s.Level, Echo(parent.ID), parent.Level))
		}
	}
	if len(flat) > 0 {
		slices.Sort(flat)
		return nil, Errorf(KindCorruptIndex, "corrupt index: a child's level must be greater than its parent's: %s", ListCapped(flat, ", "))
	}
	return h, nil
}

func (h *hierarchy) findCycle() []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[string]int, len(h.byID))
	ids := make([]string, 0, len(h.byID))
	for id := range h.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same cycle is reported the same way every time
	for _, start := range ids {
		var path []string
		id := start
		for id != "" && state[id] == unseen {
			state[id] = onPath
			path = append(path, id)
			id = h.byID[id].ParentCommunityID
		}
		if id != "" && state[id] == onPath {
			at := slices.Index(path, id)
			return append(path[at:], id)
		}
		for _, p := range path {
			state[p] = done
		}
	}
	return nil
}

func (h *hierarchy) isLeaf(id string) bool {
	_, exists := h.byID[id]
	return exists && len(h.children[id]) == 0
}

// leafSpans lays out every leaf of the forest in one depth-first order,
// roots and children in id order (docs/contract.md#map-text), so that the
// descendant leaves of any summary are one run of it: leaves[span[id]].
// One pass over the forest gives every summary's leaves, where walking down
// from each summary cost its depth again (a 20,000-deep chain took minutes,
// docs/contract.md#auto-level).
type leafSpans struct {
	leaves []string
	span   map[string][2]int // [from, to) in leaves
}

// leafSpans walks the forest once, without recursion: a chain of any
// depth costs no stack.
func (h *hierarchy) leafSpans() leafSpans {
	out := leafSpans{span: make(map[string][2]int, len(h.byID))}
	roots := make([]string, 0, len(h.byID))
	for id, s := range h.byID {
		if s.ParentCommunityID == "" {
			roots = append(roots, id)
		}
	}
	slices.Sort(roots)
	type frame struct {
		id   string
		next int // the next child to enter
		from int
	}
	var stack []frame
	for _, root := range roots {
		stack = append(stack, frame{id: root, from: len(out.leaves)})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			kids := h.children[top.id]
			if len(kids) == 0 {
				out.leaves = append(out.leaves, top.id)
			}
			if top.next < len(kids) {
				kid := kids[top.next]
				top.next++
				stack = append(stack, frame{id: kid, from: len(out.leaves)})
				continue
			}
			out.span[top.id] = [2]int{top.from, len(out.leaves)}
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// of returns the descendant leaves of id in map-text order; a leaf's only
// descendant leaf is itself. The slice is shared: its capacity ends with
// it, so an append copies rather than overwrites another summary's leaves.
func (l leafSpans) of(id string) []string {
	sp := l.span[id]
	return l.leaves[sp[0]:sp[1]:sp[1]]
}

// MaxListedLevels bounds the levels a search that selects nothing lists
// (docs/contract.md#selection): an index is free to give every summary a level of its
// own, and the list lives in the plan item and the status line.
const MaxListedLevels = 50

// levels returns the lowest MaxListedLevels distinct levels of the
// namespace, ascending. Sorting once and dropping repeats is O(n log n);
// a membership test per summary was quadratic in the distinct levels.
func (h *hierarchy) levels() []int {
	levels := make([]int, 0, len(h.byID))
	for _, s := range h.byID {
		levels = append(levels, s.Level)
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	return slices.Clone(levels[:min(len(levels), MaxListedLevels)])
}

// selectSummaries applies docs/contract.md#selection: leaves, one level or
// GraphRAG's community level (docs/contract.md#graphrag-level), non-blank
// summaries only, ordered by id. AutoLevel selects every non-blank summary,
// the candidates of docs/contract.md#auto-level, which chooseLevel narrows.
func (h *hierarchy) selectSummaries(level Level) []*Summary {
	var out []*Summary
	for _, s := range h.byID {
		if strings.TrimSpace(s.Summary) == "" {
			continue
		}
		if level == AutoLevel || h.holds(level, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *Summary) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// CheckHierarchy applies the search's hierarchy rules (docs/contract.md#hierarchy)
// to summaries: a parent that names no summary, a cycle, or a child whose level
// is not greater than its parent's is a corrupt index naming the ids. It is the
// check every search makes, exported so that a writer (the GraphRAG import)
// refuses what the search would refuse, with the same messages; Records.Validate
// leaves the hierarchy out because it checks one record at a time.
func CheckHierarchy(summaries []Summary) error {
	_, err := newHierarchy(summaries)
	return err
}
