package e2e

import (
	"context"
	"sync"
	"testing"
	"time"
)

// barrier holds every call to wait until n calls are waiting at once, then
// lets them all through, and every later call too. If the n never arrive
// together within the deadline, it lets everything through and opened
// reports false: the deadline is the failure path, never a measurement.
// The deadline runs from the first call, not from newBarrier: a barrier
// made before parallel subtests start must not expire while its subtest
// still waits its turn behind the others.
type barrier struct {
	n        int
	deadline time.Duration
	ctx      context.Context
	cancel   context.CancelFunc
	mu       sync.Mutex
	waiting  int
	open     chan struct{}
}

func newBarrier(t *testing.T, n int, deadline time.Duration) *barrier {
	b := &barrier{n: n, deadline: deadline, open: make(chan struct{})}
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.cancel != nil {
			b.cancel()
		}
	})
	return b
}

func (b *barrier) wait() {
	b.mu.Lock()
	if b.opened() {
		b.mu.Unlock()
		return
	}
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithTimeout(context.Background(), b.deadline)
	}
	// Calls that come one after another, each given up on, never add up:
	// only calls waiting at the same time open the barrier.
	b.waiting++
	if b.waiting == b.n && b.ctx.Err() == nil {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
	case <-b.ctx.Done():
		b.mu.Lock()
		b.waiting--
		b.mu.Unlock()
	}
}

func (b *barrier) opened() bool {
	select {
	case <-b.open:
		return true
	default:
		return false
	}
}
