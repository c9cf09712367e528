package globalsearch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// timelineOf reads only the instants the plan and answers recorded
// (docs/contract.md#timeline): every field it cannot measure is absent.
func TestTimelineOf(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	atNs := func(ns int) time.Time { return t0.Add(time.Duration(ns)) }
	plan := Plan{CreatedAt: t0, PlannedAt: at(1500)}
	called := func(index, from, to int) MapAnswer {
		return MapAnswer{BatchIndex: index, CalledAt: at(from), AnsweredAt: at(to)}
	}
	cached := func(index, to int) MapAnswer { return MapAnswer{BatchIndex: index, Cached: true, AnsweredAt: at(to)} }
	tests := []struct {
		name                 string
		plan                 Plan
		answers              []MapAnswer
		reduceFrom, reduceTo time.Time
		want                 Timeline
	}{
		{name: "every stage measured: the earliest call starts the map stage, the latest answer ends it",
			plan: plan, answers: []MapAnswer{called(0, 4000, 6250), called(1, 3000, 5000), called(2, 3500, 7000)},
			reduceFrom: at(8000), reduceTo: at(9125),
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), FirstMapCallSeconds: new(3.0), MapSeconds: new(4.0), ReduceSeconds: new(1.125)}},
		{name: "a cached answer ends the map stage but never starts it",
			plan: plan, answers: []MapAnswer{cached(0, 2000), called(1, 3000, 5000), cached(2, 7500)},
			reduceFrom: at(8000), reduceTo: at(9000),
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), FirstMapCallSeconds: new(3.0), MapSeconds: new(4.5), ReduceSeconds: new(1.0)}},
		{name: "a cached answer that kept a call's instant still made no call",
			plan: plan, answers: []MapAnswer{{BatchIndex: 0, Cached: true, CalledAt: at(2000), AnsweredAt: at(2100)}, called(1, 3000, 5000)},
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), FirstMapCallSeconds: new(3.0), MapSeconds: new(2.0)}},
		{name: "every answer cached: no map call, so no map stage",
			plan: plan, answers: []MapAnswer{cached(0, 2000), cached(1, 2100)}, reduceFrom: at(3000), reduceTo: at(3500),
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), ReduceSeconds: new(0.5)}},
		{name: "no answer (every batch failed): no map stage",
			plan: plan, reduceFrom: at(3000), reduceTo: at(3000),
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), ReduceSeconds: new(0.0)}},
		{name: "a reduce step that does not measure itself leaves reduce out",
			plan: plan, answers: []MapAnswer{called(0, 2000, 4000)},
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), FirstMapCallSeconds: new(2.0), MapSeconds: new(2.0)}},
		{name: "a plan and answers stored before the instants were recorded",
			plan: Plan{CreatedAt: t0}, answers: []MapAnswer{{BatchIndex: 0}, {BatchIndex: 1, Cached: true}},
			reduceFrom: at(8000), reduceTo: at(8250),
			want: Timeline{StartedAt: t0, ReduceSeconds: new(0.25)}},
		{name: "durations are rounded to the millisecond, halves away from zero",
			plan:       Plan{CreatedAt: t0, PlannedAt: atNs(1_234_567_890)},
			answers:    []MapAnswer{{CalledAt: atNs(2_000_499_999), AnsweredAt: atNs(4_001_500_000)}},
			reduceFrom: at(5000), reduceTo: atNs(5_000_500_000),
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.235), FirstMapCallSeconds: new(2.0), MapSeconds: new(2.001), ReduceSeconds: new(0.001)}},
		{name: "clocks of two functions that disagree give 0, not a negative span",
			plan: plan, answers: []MapAnswer{called(0, -200, 3000)},
			want: Timeline{StartedAt: t0, PrepareSeconds: new(1.5), FirstMapCallSeconds: new(0.0), MapSeconds: new(3.2)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, timelineOf(tc.plan, tc.answers, tc.reduceFrom, tc.reduceTo))
		})
	}
}
