package globalsearch

import "slices"

// compareStanding reports what changed since prev, the previous run of p's
// standing question (nil for none), by content rather than by id
// (docs/contract.md#standing-questions): a re-built index may renumber its
// communities, and a community whose text is unchanged is unchanged under
// any id.
func compareStanding(p Params, prev *StandingRecord, batches []Batch) *Changes {
	cur := planCommunities(batches)
	ch := &Changes{StandingQuery: p.StandingQuery, Communities: len(cur), Reset: p.StandingReset}
	if prev == nil {
		ch.listed()
		return ch
	}
	started := prev.StartedAt
	ch.PreviousQueryID, ch.PreviousStartedAt = prev.QueryID, &started
	was := prev.Communities
	paired := pairCommunities(was, cur)
	var added, removed, changed []string
	used := make([]bool, len(was))
	for j, i := range paired {
		switch {
		case i < 0:
			added = append(added, cur[j].ID)
			continue
		case was[i].Hash == cur[j].Hash:
			ch.Unchanged++
		default:
			changed = append(changed, cur[j].ID)
		}
		used[i] = true
		if was[i].ID != cur[j].ID {
			ch.Renumbered++
		}
	}
	for i, u := range used {
		if !u {
			removed = append(removed, was[i].ID)
		}
	}
	for _, l := range []struct {
		ids  []string
		into *CommunityChanges
	}{{added, &ch.Added}, {removed, &ch.Removed}, {changed, &ch.Changed}} {
		slices.Sort(l.ids) // in id order, as the record is, whatever paired them
		for _, id := range l.ids {
			l.into.add(id)
		}
	}
	ch.listed()
	return ch
}

// pairCommunities pairs each of cur with one of was, the index into was
// or -1 for none, in four rounds, each over what the earlier left: the
// same id and text; the same text (renumbered); the same identity digest
// (changed, perhaps renumbered); the same id (changed). Both are in id
// order, so each round is one pass.
func pairCommunities(was, cur []CommunityHash) []int {
	paired := make([]int, len(cur))
	for j := range paired {
		paired[j] = -1
	}
	used := make([]bool, len(was))
	byID := make(map[string]int, len(was))
	for i, c := range was {
		byID[c.ID] = i
	}
	round := func(field func(CommunityHash) string, sameID bool) {
		free := map[string][]int{}
		for i, c := range was {
			if !used[i] && field(c) != "" {
				free[field(c)] = append(free[field(c)], i)
			}
		}
		for j, c := range cur {
			if paired[j] >= 0 || field(c) == "" {
				continue
			}
			if sameID {
				if i, ok := byID[c.ID]; ok && !used[i] && field(was[i]) == field(c) {
					paired[j], used[i] = i, true
				}
				continue
			}
			for len(free[field(c)]) > 0 {
				i := free[field(c)][0]
				free[field(c)] = free[field(c)][1:]
				if !used[i] {
					paired[j], used[i] = i, true
					break
				}
			}
		}
	}
	hash := func(c CommunityHash) string { return c.Hash }
	round(hash, true)
	round(hash, false)
	round(func(c CommunityHash) string { return c.Key }, false)
	round(func(c CommunityHash) string { return c.ID }, true)
	return paired
}
