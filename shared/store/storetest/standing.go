package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// RunStanding is the conformance suite of globalsearch.Standing
// (docs/contract.md#standing-questions): the runs table on each emulator,
// the memstore and the directory store all pass it. open returns an empty
// store; it is called once per subtest.
func RunStanding(t *testing.T, open func(t *testing.T) globalsearch.Standing) {
	tests := []struct {
		name string
		run  func(t *testing.T, s globalsearch.Standing)
	}{
		{"a question never recorded is not found", testStandingMissing},
		{"a record reads back as written, apart by namespace and name", testStandingRoundTrip},
		{"a record of an earlier run never replaces a later one", testStandingNewerWins},
		{"a name no request can hold is refused", testStandingBadKey},
		{"a record over the cap is refused and the stored one stays", testStandingTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

var standingStart = time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)

func standingRecord(ns, name, queryID string, at time.Time, n int) globalsearch.StandingRecord {
	r := globalsearch.StandingRecord{Namespace: ns, Name: name, QueryID: queryID, StartedAt: at}
	for i := range n {
		r.Communities = append(r.Communities, globalsearch.CommunityHash{
			ID: fmt.Sprintf("c-%06d", i), Hash: hashOf(i), Batch: i / 7})
	}
	return r
}

func testStandingMissing(t *testing.T, s globalsearch.Standing) {
	_, err := s.StandingRecord(context.Background(), "default", "nightly")
	assertNotFound(t, err, "unrecorded question")
}

func testStandingRoundTrip(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	want := []globalsearch.StandingRecord{
		standingRecord("default", "nightly", "q-1", standingStart, 30),
		standingRecord("default", "weekly", "q-2", standingStart, 3),
		standingRecord("other", "nightly", "q-3", standingStart, 0),
	}
	for _, r := range want {
		require.NoError(t, s.SaveStandingRecord(ctx, r))
	}
	for _, r := range want {
		got, err := s.StandingRecord(ctx, r.Namespace, r.Name)
		require.NoError(t, err)
		assert.Equal(t, r.QueryID, got.QueryID)
		assert.True(t, r.StartedAt.Equal(got.StartedAt), "startedAt %v, want %v", got.StartedAt, r.StartedAt)
		assert.Equal(t, r.Namespace, got.Namespace)
		assert.Equal(t, r.Name, got.Name)
		assert.Len(t, got.Communities, len(r.Communities))
		if len(r.Communities) > 0 {
			assert.Equal(t, r.Communities, got.Communities)
		}
	}
	_, err := s.StandingRecord(ctx, "other", "weekly")
	assertNotFound(t, err, "a name recorded in another namespace only")
}

func testStandingNewerWins(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	later := standingRecord("default", "nightly", "q-later", standingStart.Add(time.Hour), 2)
	require.NoError(t, s.SaveStandingRecord(ctx, later))
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-earlier", standingStart, 5)))
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-later", got.QueryID, "an earlier run finishing late keeps the later record")

	again := standingRecord("default", "nightly", "q-again", standingStart.Add(time.Hour), 4)
	require.NoError(t, s.SaveStandingRecord(ctx, again))
	newest := standingRecord("default", "nightly", "q-newest", standingStart.Add(2*time.Hour), 1)
	require.NoError(t, s.SaveStandingRecord(ctx, newest))
	got, err = s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-newest", got.QueryID)
	assert.Len(t, got.Communities, 1)
}

func testStandingBadKey(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	for _, key := range [][2]string{{"default", "../../etc"}, {"Bad Namespace", "nightly"}, {"default", ""}} {
		_, err := s.StandingRecord(ctx, key[0], key[1])
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "read %q: %v", key, err)
		err = s.SaveStandingRecord(ctx, standingRecord(key[0], key[1], "q-1", standingStart, 1))
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "save %q: %v", key, err)
	}
}

func testStandingTooLarge(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-small", standingStart, 3)))
	// 8 bytes of hash per community do not compress: 50,000 pass the cap.
	err := s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-huge", standingStart.Add(time.Hour), 50_000))
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "over the")
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-small", got.QueryID)
}

// hashOf is a hash as the engine writes them: 16 hex digits that do not
// compress.
func hashOf(i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d", i))
	return hex.EncodeToString(sum[:8])
}

// StandingClock is a settable clock for RunStandingExpiry.
type StandingClock struct{ T time.Time }

// Now returns the clock's time.
func (c *StandingClock) Now() time.Time { return c.T }

// RunStandingExpiry checks that a record lives ttl from its save, by
// clock, for the stores that outlive a process (the runs table, the
// directory): past it the question reads as never recorded, and a save of
// an earlier run replaces the expired record.
func RunStandingExpiry(t *testing.T, ttl time.Duration, open func(t *testing.T, clock *StandingClock) globalsearch.Standing) {
	ctx := context.Background()
	clock := &StandingClock{T: standingStart}
	s := open(t, clock)
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-later", standingStart.Add(time.Hour), 2)))
	clock.T = standingStart.Add(ttl - time.Second)
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err, "just before its expiry")
	assert.Equal(t, "q-later", got.QueryID)
	clock.T = standingStart.Add(ttl + time.Second)
	_, err = s.StandingRecord(ctx, "default", "nightly")
	assertNotFound(t, err, "an expired record")
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-earlier", standingStart, 1)))
	got, err = s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-earlier", got.QueryID, "an expired record does not hold a save back")
}
