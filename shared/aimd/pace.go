package aimd

import (
	"context"
	"slices"
	"time"
)

// The pacer's interval between two probes: it starts at FirstInterval,
// doubles when a probe is refused, up to MaxInterval, and halves when one
// is admitted, down to MinInterval.
const (
	FirstInterval = time.Second
	MinInterval   = FirstInterval / 16
	MaxInterval   = 30 * time.Second
)

// pacer sends the refused calls again one at a time, at the rate the
// server admits them (docs/contract.md#auto-concurrency). Each call backing
// off on its own sends them together: a quota that starts empty refuses
// every call of a run at once, so they all back off in step (1, 2, 4, 8 s)
// and the last ones wait a whole doubled backoff after the quota could
// have admitted them. Here they wait in one queue and one call, the probe,
// goes at a time: a refused probe doubles the interval to the next one; a
// probe not refused by the next one's time was admitted, and the interval
// after that one halves. The retries so find the quota's refill rate as
// TCP's slow start finds a path's. Its fields are the Limiter's, under its
// mutex.
type pacer struct {
	queue    []*waiter
	interval time.Duration
	timer    *time.Timer // the next probe; nil when none is due
	// probing is whether a probe was let go since the last tick, and
	// refused whether it came back refused: a probe not refused by the
	// next tick was admitted, since a refusal comes back at once and an
	// admitted call only when it ends.
	probing, refused bool
	// due is a tick that found every slot taken: the next slot given back
	// goes to the head of the queue.
	due bool
}

// waiter is one call in the pacer's queue; ready is closed once it holds
// slot.
type waiter struct {
	ready   chan struct{}
	slot    Slot
	granted bool
}

// Retry waits, after the server refused a call (Throttled), for the pacer
// to send it again, and returns its new slot; or returns ctx's error when
// ctx ends first. The call goes to the head of the queue: it has waited
// longest.
func (l *Limiter) Retry(ctx context.Context) (Slot, error) {
	return l.wait(ctx, true)
}

// wait queues a call, at the head when it was refused, and waits for its
// turn.
func (l *Limiter) wait(ctx context.Context, refused bool) (Slot, error) {
	w := &waiter{ready: make(chan struct{})}
	l.mu.Lock()
	if refused {
		l.pace.queue = slices.Insert(l.pace.queue, 0, w)
	} else {
		l.pace.queue = append(l.pace.queue, w)
	}
	if l.pace.timer == nil {
		l.schedule()
	}
	l.mu.Unlock()
	select {
	case <-w.ready:
		return w.slot, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted {
		l.release() // the turn came as ctx ended: give its slot back
	} else if i := slices.Index(l.pace.queue, w); i >= 0 {
		l.pace.queue = slices.Delete(l.pace.queue, i, i+1)
	}
	return Slot{}, ctx.Err()
}

// schedule sets the next probe one interval from now; l.mu is held.
func (l *Limiter) schedule() {
	if l.pace.timer != nil {
		l.pace.timer.Stop()
	}
	l.pace.timer = time.AfterFunc(l.pace.interval, l.tick)
}

// tick is a probe's time: the last probe, not refused since, was admitted,
// so the quota had room and the interval halves; the head of the queue
// goes now, or with the next slot given back.
func (l *Limiter) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pace.timer = nil
	if l.pace.probing && !l.pace.refused {
		l.pace.interval = max(l.pace.interval/2, MinInterval)
	}
	l.pace.probing = false
	if len(l.pace.queue) == 0 {
		return
	}
	if l.inFlight < l.limit {
		l.grant()
	} else {
		l.pace.due = true
	}
	if len(l.pace.queue) > 0 {
		l.schedule()
	}
}

// grant gives the head of the queue a slot as the probe; l.mu is held and
// a slot is free.
func (l *Limiter) grant() {
	w := l.pace.queue[0]
	l.pace.queue = l.pace.queue[1:]
	l.inFlight++
	w.slot = Slot{epoch: l.epoch, probe: true}
	w.granted = true
	close(w.ready)
	l.pace.probing, l.pace.refused, l.pace.due = true, false, false
	if len(l.pace.queue) == 0 && l.pace.timer != nil {
		l.pace.timer.Stop()
		l.pace.timer = nil
	}
}

// slotFreed hands a slot just given back to a probe a tick found no slot
// for; l.mu is held.
func (l *Limiter) slotFreed() {
	if l.pace.due && len(l.pace.queue) > 0 && l.inFlight < l.limit {
		l.grant()
	}
}

// refusedProbe doubles the interval when s was a probe and the server
// refused it, and sets the next probe one interval from now; l.mu is held.
func (l *Limiter) refusedProbe(s Slot) {
	if !s.probe {
		return
	}
	l.pace.interval = min(2*l.pace.interval, MaxInterval)
	l.pace.refused = true
	l.schedule()
}
