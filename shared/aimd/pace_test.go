package aimd_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/aimd"
)

// turn is when a refused call's turn came, with its slot.
type turn struct {
	at   time.Duration
	slot aimd.Slot
	err  error
}

// refused takes n slots and has the server refuse each, as an empty quota
// refuses the first calls of a run; each then waits for the pacer, and
// its turn comes on the channel.
func refused(ctx context.Context, t *testing.T, l *aimd.Limiter, n int, start time.Time) chan turn {
	t.Helper()
	turns := make(chan turn, 4*n)
	slots := make([]aimd.Slot, n)
	for i := range slots {
		// All taken first: once one refused call waits, a new one waits
		// behind it.
		var err error
		slots[i], err = l.Acquire(ctx)
		require.NoError(t, err)
	}
	for _, s := range slots {
		l.Throttled(s)
		retry(ctx, l, start, turns)
	}
	synctest.Wait()
	return turns
}

func retry(ctx context.Context, l *aimd.Limiter, start time.Time, turns chan turn) {
	go func() {
		s, err := l.Retry(ctx)
		turns <- turn{time.Since(start), s, err}
	}()
}

// The refused calls go again one at a time, the first FirstInterval after
// the refusals: a refused probe doubles the interval and the next goes
// that long after it; a probe not refused by the next one's time was
// admitted and halves the interval after that one.
func TestPacerProbes(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		refuse  []bool          // the server's answer to each probe in turn
		want    []time.Duration // when each probe went
		wantEnd time.Duration   // the interval to the probe after the last
	}{
		{"admitted probes: the interval halves", []bool{false, false, false, false},
			[]time.Duration{s, 2 * s, 2*s + s/2, 2*s + 3*s/4}, s / 8},
		{"refused probes: the interval doubles", []bool{true, true, true},
			[]time.Duration{s, 3 * s, 7 * s}, 8 * s},
		{"refused, then admitted", []bool{true, false, false},
			[]time.Duration{s, 3 * s, 5 * s}, s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				l := aimd.New(8)
				start := time.Now()
				turns := refused(ctx, t, l, len(tt.refuse)+1, start)
				var got []time.Duration
				for _, refuse := range tt.refuse {
					tr := <-turns
					require.NoError(t, tr.err)
					got = append(got, tr.at)
					if refuse {
						l.Throttled(tr.slot)
						retry(ctx, l, start, turns)
					}
					synctest.Wait()
				}
				assert.Equal(t, tt.want, got)
				last := <-turns
				assert.Equal(t, got[len(got)-1]+tt.wantEnd, last.at, "the next probe")
				cancel()
			})
		})
	}
}

// The interval stays within MinInterval and MaxInterval however many
// probes are admitted or refused in a row.
func TestPacerIntervalBounds(t *testing.T) {
	tests := []struct {
		name   string
		refuse bool
		want   time.Duration
	}{
		{"admitted forever: MinInterval", false, aimd.MinInterval},
		{"refused forever: MaxInterval", true, aimd.MaxInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				l := aimd.New(64)
				start := time.Now()
				turns := refused(ctx, t, l, 40, start)
				var at []time.Duration
				for range 20 {
					tr := <-turns
					at = append(at, tr.at)
					if tt.refuse {
						l.Throttled(tr.slot)
						retry(ctx, l, start, turns)
					}
					synctest.Wait()
				}
				assert.Equal(t, tt.want, at[len(at)-1]-at[len(at)-2], "%v", at)
			})
		})
	}
}

// While refused calls wait, a new call waits behind them, not in front:
// the quota that refused them has no room for it either.
func TestAcquireQueuesBehindTheRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		l := aimd.New(8)
		start := time.Now()
		turns := refused(ctx, t, l, 1, start)
		fresh := make(chan time.Duration, 1)
		go func() {
			_, err := l.Acquire(ctx)
			assert.NoError(t, err)
			fresh <- time.Since(start)
		}()
		synctest.Wait()
		require.Empty(t, fresh, "7 slots free, but a refused call waits")
		first := <-turns
		assert.Equal(t, time.Second, first.at, "the refused call goes first")
		assert.Equal(t, 2*time.Second, <-fresh, "the new call is the next probe")
	})
}

// A probe the server refuses lowers the limit to the calls it holds
// besides, never raises it: the pacer sent it one past those, and they
// were what the quota admits. The refusals of calls sent under the limit
// halve it as before.
func TestProbeRefusalLowersTheLimitToTheCallsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		l := aimd.New(8)
		served, err := l.Acquire(ctx)
		require.NoError(t, err)
		l.Done(served) // the server has admitted a call
		held := make([]aimd.Slot, 2)
		for i := range held {
			held[i], err = l.Acquire(ctx)
			require.NoError(t, err)
		}
		start := time.Now()
		turns := refused(ctx, t, l, 1, start)
		assert.Equal(t, 4, l.Limit(), "a call sent under the limit, refused, halves it")
		probe := <-turns
		require.NoError(t, probe.err)
		l.Throttled(probe.slot)
		assert.Equal(t, 2, l.Limit(), "a refused probe: the two calls held")
		retry(ctx, l, start, turns)
		synctest.Wait()
		require.Empty(t, turns, "two in flight under a limit of 2: its turn waits for a slot")
		l.Done(held[0])
		probe = <-turns
		require.NoError(t, probe.err)
		l.Throttled(probe.slot)
		assert.Equal(t, 1, l.Limit(), "refused again with one call held")
		assert.Equal(t, aimd.Stats{Ceiling: 8, Peak: 8, Final: 1, Throttled: 3}, l.Stats())
	})
}

// A probe's turn that comes while every slot is taken goes with the next
// slot given back.
func TestPacerWaitsForASlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		l := aimd.New(2)
		served, err := l.Acquire(ctx)
		require.NoError(t, err)
		l.Done(served)
		held, err := l.Acquire(ctx)
		require.NoError(t, err)
		start := time.Now()
		turns := refused(ctx, t, l, 1, start) // halves the limit to 1, which held fills
		time.Sleep(5 * time.Second)
		synctest.Wait()
		require.Empty(t, turns, "its turn came at 1 s, with no slot free")
		l.Done(held)
		got := <-turns
		require.NoError(t, got.err)
		assert.Equal(t, 5*time.Second, got.at, "it goes with the slot given back")
	})
}

// A call whose context ends while it waits leaves the queue with ctx's
// error, and the one behind it goes in its place.
func TestPacerForgetsTheCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := aimd.New(4)
		start := time.Now()
		first, cancelFirst := context.WithCancel(t.Context())
		second, cancelSecond := context.WithCancel(t.Context())
		defer cancelSecond()
		a, err := l.Acquire(first)
		require.NoError(t, err)
		b, err := l.Acquire(second)
		require.NoError(t, err)
		head, behind := make(chan turn, 1), make(chan turn, 1)
		l.Throttled(a)
		retry(first, l, start, head)
		synctest.Wait()
		l.Throttled(b)
		retry(second, l, start, behind) // a refused call goes to the head
		synctest.Wait()
		cancelSecond()
		got := <-behind
		assert.ErrorIs(t, got.err, context.Canceled)
		assert.Zero(t, got.at, "ended at once, not at its turn")
		other := <-head
		require.NoError(t, other.err)
		assert.Equal(t, time.Second, other.at, "the next in the queue took the turn")
		cancelFirst()
	})
}
