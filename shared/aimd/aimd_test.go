package aimd_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/aimd"
)

// step is one event of a script: take n slots, or end slot i (in the order
// taken) as admitted or throttled.
type step struct {
	take      int
	done      []int
	throttled []int
}

func TestLimiterScripts(t *testing.T) {
	tests := []struct {
		name    string
		ceiling int
		script  []step
		want    aimd.Stats
	}{
		{
			name: "starts at its ceiling", ceiling: 8,
			want: aimd.Stats{Ceiling: 8, Peak: 8, Final: 8},
		},
		{
			name: "a ceiling below 1 is 1", ceiling: 0,
			want: aimd.Stats{Ceiling: 1, Peak: 1, Final: 1},
		},
		{
			name: "refusals before any call was admitted leave the limit", ceiling: 8,
			// An empty quota: fewer calls in flight would not refill it sooner.
			script: []step{{take: 8}, {throttled: []int{0, 1, 2, 3}}, {take: 4}, {throttled: []int{4, 5, 6, 7}}},
			want:   aimd.Stats{Ceiling: 8, Peak: 8, Final: 8, Throttled: 8},
		},
		{
			name: "the refusals of one burst halve the limit once", ceiling: 8,
			// Slot 0 is admitted first: the server has served a call.
			script: []step{{take: 1}, {done: []int{0}}, {take: 8}, {throttled: []int{1, 2, 3, 4}}},
			want:   aimd.Stats{Ceiling: 8, Peak: 8, Final: 4, Throttled: 4},
		},
		{
			name: "a refusal of a call sent after the decrease halves it again", ceiling: 8,
			script: []step{{take: 1}, {done: []int{0}}, {take: 2}, {throttled: []int{1}}, {take: 1}, {throttled: []int{3, 2}}},
			want:   aimd.Stats{Ceiling: 8, Peak: 8, Final: 2, Throttled: 3},
		},
		{
			name: "the limit never falls below 1", ceiling: 2,
			script: []step{{take: 1}, {done: []int{0}}, {take: 1}, {throttled: []int{1}}, {take: 1}, {throttled: []int{2}}, {take: 1}, {throttled: []int{3}}},
			want:   aimd.Stats{Ceiling: 2, Peak: 2, Final: 1, Throttled: 3},
		},
		{
			name: "a window of admitted calls raises the limit by one", ceiling: 8,
			// 8 -> 4; four admitted calls -> 5; five more -> 6.
			script: []step{{take: 1}, {done: []int{0}}, {take: 1}, {throttled: []int{1}}, {take: 4}, {done: []int{2, 3, 4, 5}}, {take: 5}, {done: []int{6, 7, 8, 9, 10}}},
			want:   aimd.Stats{Ceiling: 8, Peak: 8, Final: 6, Throttled: 1},
		},
		{
			name: "a raise never passes the ceiling", ceiling: 2,
			script: []step{{take: 2}, {done: []int{0, 1}}, {take: 2}, {done: []int{2, 3}}},
			want:   aimd.Stats{Ceiling: 2, Peak: 2, Final: 2},
		},
		{
			name: "a call admitted under the old limit counts towards the new window", ceiling: 4,
			// 4 -> 2 by slot 1; slots 2 and 3 (taken before) are admitted: 2 -> 3.
			script: []step{{take: 1}, {done: []int{0}}, {take: 3}, {throttled: []int{1}}, {done: []int{2, 3}}},
			want:   aimd.Stats{Ceiling: 4, Peak: 4, Final: 3, Throttled: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := aimd.New(tt.ceiling)
			var slots []aimd.Slot
			for _, s := range tt.script {
				for range s.take {
					slot, err := l.Acquire(context.Background())
					require.NoError(t, err)
					slots = append(slots, slot)
				}
				for _, i := range s.done {
					l.Done(slots[i])
				}
				for _, i := range s.throttled {
					l.Throttled(slots[i])
				}
			}
			assert.Equal(t, tt.want, l.Stats())
			assert.Equal(t, tt.want.Final, l.Limit())
		})
	}
}

// At the limit, Acquire waits until a slot is given back, and no longer;
// a wait ends with its context.
func TestAcquireWaitsForASlot(t *testing.T) {
	tests := []struct {
		name    string
		release func(l *aimd.Limiter, s aimd.Slot, cancel context.CancelFunc)
		wantErr error
	}{
		{"an admitted call gives its slot back", func(l *aimd.Limiter, s aimd.Slot, _ context.CancelFunc) { l.Done(s) }, nil},
		{"a cancelled wait ends", func(_ *aimd.Limiter, _ aimd.Slot, cancel context.CancelFunc) { cancel() }, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := aimd.New(1)
				held, err := l.Acquire(t.Context())
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				got := make(chan error, 1)
				go func() {
					_, err := l.Acquire(ctx)
					got <- err
				}()
				synctest.Wait()
				require.Empty(t, got, "the second call waits while the first holds the only slot")
				tt.release(l, held, cancel)
				assert.ErrorIs(t, <-got, tt.wantErr)
			})
		})
	}
}

// A throttled call's slot is free at once, but the halved limit holds the
// next caller back until enough calls have ended.
func TestThrottledGivesTheSlotBackUnderTheNewLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := aimd.New(4)
		served, err := l.Acquire(t.Context())
		require.NoError(t, err)
		l.Done(served) // a refusal halves the limit once the server has admitted a call
		var slots []aimd.Slot
		for range 4 {
			s, err := l.Acquire(t.Context())
			require.NoError(t, err)
			slots = append(slots, s)
		}
		l.Throttled(slots[0]) // limit 2, three in flight
		got := make(chan error, 1)
		go func() {
			_, err := l.Acquire(t.Context())
			got <- err
		}()
		synctest.Wait()
		require.Empty(t, got, "three in flight under a limit of 2")
		l.Done(slots[1])
		synctest.Wait()
		require.Empty(t, got, "two in flight under a limit of 2")
		l.Done(slots[2])
		assert.NoError(t, <-got)
	})
}
