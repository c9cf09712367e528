package memstore

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// itemKey keys one work item of one run by round and index, as the runs
// table keys them.
type itemKey struct {
	run          runKey
	round, index int
}

// runItems are a run's work items (rating batches, reduce groups) and the
// tallies of the attempts at them (ratings, group answers): the memory
// form of the DynamoDB store's runitems.go, with the same rules.
type runItems[Item, Tally any] struct {
	mu      sync.Mutex
	items   map[itemKey]Item
	tallies map[itemKey]Tally
}

// dropRun forgets the items and tallies of run.
func (r *runItems[Item, Tally]) dropRun(run runKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	maps.DeleteFunc(r.items, func(k itemKey, _ Item) bool { return k.run == run })
	maps.DeleteFunc(r.tallies, func(k itemKey, _ Tally) bool { return k.run == run })
}

// save stores a copy of each item at the key it names.
func (r *runItems[Item, Tally]) save(run runKey, items []Item, key func(Item) (round, index int), clone func(Item) Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.items == nil {
		r.items = map[itemKey]Item{}
	}
	for _, it := range items {
		round, index := key(it)
		r.items[itemKey{run, round, index}] = clone(it)
	}
}

// item is a copy of the item at round and index of run, when run is the
// current one (current) and the item was saved; what names it in the
// error.
func (r *runItems[Item, Tally]) item(run runKey, current string, round, index int, what string, clone func(Item) Item) (Item, error) {
	var none Item
	if current != run.runID {
		return none, fmt.Errorf("%s: run %s is not the current run: %w", what, run.runID, globalsearch.ErrNotFound)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	it, ok := r.items[itemKey{run, round, index}]
	if !ok {
		return none, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	return clone(it), nil
}

// add folds one attempt into the tally at round and index of run.
func (r *runItems[Item, Tally]) add(run runKey, round, index int, fold func(*Tally)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tallies == nil {
		r.tallies = map[itemKey]Tally{}
	}
	k := itemKey{run, round, index}
	got := r.tallies[k]
	fold(&got)
	r.tallies[k] = got
}

// list is a copy of run's tallies in round, then index, order.
func (r *runItems[Item, Tally]) list(run runKey, clone func(Tally) Tally) []Tally {
	r.mu.Lock()
	defer r.mu.Unlock()
	var keys []itemKey
	for k := range r.tallies {
		if k.run == run {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b itemKey) int {
		return cmp.Or(cmp.Compare(a.round, b.round), cmp.Compare(a.index, b.index))
	})
	out := make([]Tally, 0, len(keys))
	for _, k := range keys {
		out = append(out, clone(r.tallies[k]))
	}
	return out
}

// dropRunItems forgets run's work items and tallies of every kind.
func (s *Store) dropRunItems(run runKey) {
	s.rating.dropRun(run)
	s.rounds.dropRun(run)
	s.attempts.dropRun(run)
}

// currentRun is the run id of queryID's current plan ("" when it has
// none): only that run's work items are read.
func (s *Store) currentRun(queryID string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.plans[queryID].RunID
}
