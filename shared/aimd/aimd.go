// Package aimd is an adaptive limit on calls in flight: additive increase,
// multiplicative decrease, the rule TCP sizes its window by. A caller takes
// a slot before each call and says how the call ended; the limit grows by
// one after every window of calls the server admitted and halves when one
// is refused for load (docs/contract.md#auto-concurrency). The refused
// calls wait in its one queue and are sent again paced (pace.go). It knows
// nothing of models or batches.
package aimd

import (
	"context"
	"sync"
	"time"
)

// Limiter is the adaptive limit. It is safe for concurrent use.
type Limiter struct {
	mu       sync.Mutex
	ceiling  int
	limit    int
	inFlight int
	// admitted counts the calls admitted since the limit last changed: a
	// whole window of them (as many as the limit) raises it by one.
	admitted int
	// epoch counts the decreases. A slot remembers the epoch it was taken
	// in, so that the calls sent under the old limit, refused in the same
	// burst, halve it once and not once each.
	epoch int
	// served is whether the server has admitted any call yet. Until it
	// has, its refusals say its quota is empty, not that too many calls
	// are in flight: fewer would not refill it sooner.
	served    bool
	stats     Stats
	openSlots chan struct{} // closed, and replaced, whenever a slot may have opened
	pace      pacer         // the refused calls waiting to be sent again (pace.go)
}

// Stats is what a Limiter did.
type Stats struct {
	// Ceiling is the most the limit could reach; Peak the most it did;
	// Final the limit when the stats were read.
	Ceiling int `json:"ceiling"`
	Peak    int `json:"peak"`
	Final   int `json:"final"`
	// Throttled counts the calls refused for load.
	Throttled int `json:"throttled"`
}

// Slot is one call's admission by the Limiter; Done or Throttled returns it.
// A probe is a call the pacer let go from its queue (pace.go): how it ends
// tells the pacer whether the quota had room.
type Slot struct {
	epoch int
	probe bool
}

// New returns a Limiter that starts at ceiling (at least 1): a refused call
// costs the server nothing, so the limit starts high and the first refusal
// brings it down, rather than climbing one window at a time to a quota
// that was there from the start.
func New(ceiling int) *Limiter {
	ceiling = max(ceiling, 1)
	return &Limiter{ceiling: ceiling, limit: ceiling, stats: Stats{Ceiling: ceiling, Peak: ceiling},
		openSlots: make(chan struct{}), pace: pacer{interval: FirstInterval}}
}

// Acquire waits for a slot: until fewer calls than the limit are in
// flight, or ctx ends. While refused calls wait for the pacer, a new call
// waits behind them (pace.go): the quota that refused them has no room for
// it either, and it would take the room they are waiting for.
func (l *Limiter) Acquire(ctx context.Context) (Slot, error) {
	for {
		l.mu.Lock()
		if len(l.pace.queue) > 0 {
			l.mu.Unlock()
			return l.wait(ctx, false)
		}
		if l.inFlight < l.limit {
			l.inFlight++
			s := Slot{epoch: l.epoch}
			l.mu.Unlock()
			return s, nil
		}
		open := l.openSlots
		l.mu.Unlock()
		select {
		case <-open:
		case <-ctx.Done():
			return Slot{}, ctx.Err()
		}
	}
}

// Done returns the slot of a call the server admitted, whatever it then
// answered: it counts towards the window that raises the limit.
func (l *Limiter) Done(s Slot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.served = true
	l.admitted++
	if l.admitted >= l.limit {
		l.admitted = 0
		l.limit = min(l.limit+1, l.ceiling)
		l.stats.Peak = max(l.stats.Peak, l.limit)
	}
	l.release()
	l.slotFreed()
}

// Throttled returns the slot of a call the server refused for load. The
// first refusal of the calls sent under one limit halves it (floor 1),
// once the server has admitted a call: before that its quota is empty
// (docs/contract.md#auto-concurrency), and halving would only leave the
// quota idle once it refills, to be climbed back a window at a time. A
// refused probe (pace.go) lowers the limit to the calls in flight besides
// it instead: halving on each of them, one every interval, would bring the
// limit under what a quota limited by its rate rather than its calls in
// flight sustains. The call then waits for the pacer: Retry.
func (l *Limiter) Throttled(s Slot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Throttled++
	switch {
	case !l.served:
	case s.probe:
		// The pacer sent it, one call past those in flight: the server
		// holds those and no more, which is the limit now, if lower.
		if held := max(1, l.inFlight-1); held < l.limit {
			l.decrease(held)
		}
	case s.epoch == l.epoch:
		l.decrease(max(1, l.limit/2))
	}
	l.release()
	l.refusedProbe(s)
}

// decrease lowers the limit to limit and starts a new epoch and window;
// l.mu is held.
func (l *Limiter) decrease(limit int) {
	l.limit = limit
	l.epoch++
	l.admitted = 0
}

// release frees a slot; l.mu is held.
func (l *Limiter) release() {
	l.inFlight--
	close(l.openSlots)
	l.openSlots = make(chan struct{})
}

// Limit is the limit now.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// Stats reports what the Limiter did so far.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Final = l.limit
	return s
}

// Wait sleeps d or until ctx ends, and returns ctx's error in that case.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
