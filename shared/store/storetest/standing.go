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
		{"a record of another question is kept until a reset replaces it", testStandingOtherQuestion},
		{"a record without its question is kept until a reset replaces it", testStandingNoQuestion},
		{"a reset never replaces the record of a later run", testStandingResetKeepsLater},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

var standingStart = time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)

// standingQuestion is the question of every record the suite saves but
// those of testStandingOtherQuestion.
var standingQuestion = globalsearch.StandingQuestion{Query: "What changed?", CommunityLevel: globalsearch.LeafLevel,
	MapModel: "model-a", MapPrompts: "0123456789abcdef", MapOutputReserve: 512}

func standingRecord(ns, name, queryID string, at time.Time, n int) globalsearch.StandingRecord {
	r := globalsearch.StandingRecord{Namespace: ns, Name: name, Question: standingQuestion, QueryID: queryID, StartedAt: at}
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
		require.NoError(t, s.SaveStandingRecord(ctx, r, false))
	}
	for _, r := range want {
		got, err := s.StandingRecord(ctx, r.Namespace, r.Name)
		require.NoError(t, err)
		assert.Equal(t, r.QueryID, got.QueryID)
		assert.True(t, r.StartedAt.Equal(got.StartedAt), "startedAt %v, want %v", got.StartedAt, r.StartedAt)
		assert.Equal(t, r.Namespace, got.Namespace)
		assert.Equal(t, r.Name, got.Name)
		assert.Equal(t, r.Question, got.Question)
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
	require.NoError(t, s.SaveStandingRecord(ctx, later, false))
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-earlier", standingStart, 5), false))
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-later", got.QueryID, "an earlier run finishing late keeps the later record")

	again := standingRecord("default", "nightly", "q-again", standingStart.Add(time.Hour), 4)
	require.NoError(t, s.SaveStandingRecord(ctx, again, false))
	newest := standingRecord("default", "nightly", "q-newest", standingStart.Add(2*time.Hour), 1)
	require.NoError(t, s.SaveStandingRecord(ctx, newest, false))
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
		err = s.SaveStandingRecord(ctx, standingRecord(key[0], key[1], "q-1", standingStart, 1), false)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "save %q: %v", key, err)
	}
}

func testStandingTooLarge(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-small", standingStart, 3), false))
	// 8 bytes of hash per community do not compress: 50,000 pass the cap.
	err := s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-huge", standingStart.Add(time.Hour), 50_000), false)
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "over the")
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-small", got.QueryID)
}

func testStandingOtherQuestion(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-1", standingStart, 3), false))
	other := standingRecord("default", "nightly", "q-2", standingStart.Add(time.Hour), 2)
	other.Question.Query, other.Question.CommunityLevel = "What else changed?", 1
	err := s.SaveStandingRecord(ctx, other, false)
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), `standing question "nightly" was recorded for query "What changed?", communityLevel leaf; this run asks for query "What else changed?", communityLevel 1`)
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-1", got.QueryID, "the other question's record stays")

	require.NoError(t, s.SaveStandingRecord(ctx, other, true))
	got, err = s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-2", got.QueryID, "a reset replaces it")
	assert.Equal(t, other.Question, got.Question)
}

func testStandingNoQuestion(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	old := standingRecord("default", "nightly", "q-old", standingStart, 3)
	old.Question = globalsearch.StandingQuestion{} // as records were written before they held it
	require.NoError(t, s.SaveStandingRecord(ctx, old, false))
	err := s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-new", standingStart.Add(time.Hour), 2), false)
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "before records named their question")
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-old", got.QueryID)
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-new", standingStart.Add(time.Hour), 2), true))
	got, err = s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-new", got.QueryID)
}

func testStandingResetKeepsLater(t *testing.T, s globalsearch.Standing) {
	ctx := context.Background()
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-later", standingStart.Add(time.Hour), 2), false))
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-earlier", standingStart, 5), true))
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-later", got.QueryID)
}

// RunStandingUnreadable checks what a store does with a record it holds
// but cannot read (docs/contract.md#standing-questions), for each way of
// damaging one the store names in kinds: reading it is invalid input
// naming where it is (a *globalsearch.StandingRecordError), never "not
// found"; a save leaves it as it is, with the same error; a reset
// replaces it. open returns an empty store and damage, which makes the
// record of name in namespace unreadable in the way kind says.
func RunStandingUnreadable(t *testing.T, kinds []string, open func(t *testing.T, kind string) (s globalsearch.Standing, damage func(namespace, name string))) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			s, damage := open(t, kind)
			require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-1", standingStart, 3), false))
			damage("default", "nightly")
			assertUnreadable := func(what string, err error) {
				t.Helper()
				require.Error(t, err, what)
				assert.NotErrorIs(t, err, globalsearch.ErrNotFound, what)
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%s: %v", what, err)
				var unreadable *globalsearch.StandingRecordError
				require.ErrorAs(t, err, &unreadable, what)
				assert.Equal(t, "nightly", unreadable.Name)
				assert.NotEmpty(t, unreadable.Where)
				assert.Contains(t, err.Error(), unreadable.Where, "the message names where the record is")
				assert.Contains(t, err.Error(), "--standing-reset")
			}
			_, err := s.StandingRecord(ctx, "default", "nightly")
			assertUnreadable("read", err)
			err = s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-2", standingStart.Add(time.Hour), 2), false)
			assertUnreadable("save", err)
			_, err = s.StandingRecord(ctx, "default", "nightly")
			assertUnreadable("read after the refused save", err)

			require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-3", standingStart.Add(2*time.Hour), 2), true))
			got, err := s.StandingRecord(ctx, "default", "nightly")
			require.NoError(t, err, "a reset replaces the record")
			assert.Equal(t, "q-3", got.QueryID)
			_, err = s.StandingRecord(ctx, "other", "nightly")
			assertNotFound(t, err, "a question never recorded")
		})
	}
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
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-later", standingStart.Add(time.Hour), 2), false))
	clock.T = standingStart.Add(ttl - time.Second)
	got, err := s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err, "just before its expiry")
	assert.Equal(t, "q-later", got.QueryID)
	clock.T = standingStart.Add(ttl + time.Second)
	_, err = s.StandingRecord(ctx, "default", "nightly")
	assertNotFound(t, err, "an expired record")
	require.NoError(t, s.SaveStandingRecord(ctx, standingRecord("default", "nightly", "q-earlier", standingStart, 1), false))
	got, err = s.StandingRecord(ctx, "default", "nightly")
	require.NoError(t, err)
	assert.Equal(t, "q-earlier", got.QueryID, "an expired record does not hold a save back")
}
