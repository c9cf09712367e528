package globalsearch

import "time"

// Timeline is where a run's time went (docs/contract.md#timeline): when it
// started and how long each stage took, in seconds to the millisecond. A
// stage the recorded instants cannot measure (it did not run, or its
// instants were stored before they were recorded) is absent, never 0, so
// the durations are pointers.
type Timeline struct {
	StartedAt           time.Time `json:"startedAt"`
	PrepareSeconds      *float64  `json:"prepareSeconds,omitempty"`
	FirstMapCallSeconds *float64  `json:"firstMapCallSeconds,omitempty"`
	MapSeconds          *float64  `json:"mapSeconds,omitempty"`
	ReduceSeconds       *float64  `json:"reduceSeconds,omitempty"`
}

// timelineOf is the timeline of a run from what its plan and answers
// recorded and the reduce step's own start and end (zero when the step
// cannot measure itself). The one-process run and the reduce function both
// reach it through finishReduce, from the same stored items.
func timelineOf(plan Plan, answers []MapAnswer, reduceStart, reduceEnd time.Time) Timeline {
	var firstCall, lastAnswer time.Time
	for _, a := range answers {
		// A cached answer made no call (docs/contract.md#map-cache): it
		// ends the map stage if it is the last answer, never starts it.
		if !a.Cached && !a.CalledAt.IsZero() && (firstCall.IsZero() || a.CalledAt.Before(firstCall)) {
			firstCall = a.CalledAt
		}
		if a.AnsweredAt.After(lastAnswer) {
			lastAnswer = a.AnsweredAt
		}
	}
	return Timeline{
		StartedAt:           plan.CreatedAt,
		PrepareSeconds:      seconds(plan.CreatedAt, plan.PlannedAt),
		FirstMapCallSeconds: seconds(plan.CreatedAt, firstCall),
		MapSeconds:          seconds(firstCall, lastAnswer),
		ReduceSeconds:       seconds(reduceStart, reduceEnd),
	}
}

// seconds is end - start in seconds rounded to the millisecond, nil when
// either instant is missing. Map calls and prepare run in different
// functions on AWS, whose clocks may disagree by a little: a span that
// comes out negative is read as 0 rather than as time running backwards.
func seconds(start, end time.Time) *float64 {
	if start.IsZero() || end.IsZero() {
		return nil
	}
	// Whole milliseconds divided once, so the JSON reads 1.235, not the
	// 1.2349999999999999 that Duration.Seconds adds up to.
	s := float64(max(end.Sub(start), 0).Round(time.Millisecond).Milliseconds()) / 1000
	return &s
}
