package globalsearch

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGroupFailures(t *testing.T) {
	throttled := errors.New("throttled")
	failures := []BatchFailure{
		failureOf(0, &BatchError{Index: 0, Err: throttled}, MapAttempts),
		failureOf(1, &BatchError{Index: 1, Err: throttled}, MapAttempts),
		{BatchIndex: 2, Message: "ModelOutputError"}, // as the state machine reports one
		failureOf(7, &BatchError{Index: 7, Err: throttled}, MapAttempts),
		failureOf(8, &BatchError{Index: 3, Err: throttled}, MapAttempts),
		failureOf(9, fmt.Errorf("retried: %w", &BatchError{Index: 9, Err: throttled}), MapAttempts),
		failureOf(10, errors.New("map batch 10: throttled"), MapAttempts), // only a BatchError is one
	}
	assert.Equal(t, "map batch 0: throttled", failures[0].Message, "the message is the error's as it came")
	var got []string
	for _, g := range GroupFailures(failures) {
		got = append(got, fmt.Sprint(g))
	}
	assert.Equal(t, []string{
		"batches 0-1, 7 (3): throttled",
		"batch 2: ModelOutputError",
		"batch 8: map batch 3: throttled", // only a batch's own number is redundant
		"batch 9: retried: map batch 9: throttled",
		"batch 10: map batch 10: throttled",
	}, got)
}
