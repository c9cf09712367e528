package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// testReduceRounds stores a tree reduce's groups and group answers
// (docs/contract.md#reduce-rounds): groups read back by run, round and
// index; every attempt adds its calls and tokens; the answer of the
// attempt that succeeded stays; nothing of one run is read as another's.
func testReduceRounds(t *testing.T, s Store) {
	ctx := context.Background()
	plan := samplePlan("q-tree", 0)
	require.NoError(t, s.SavePlan(ctx, plan))
	run := plan.RunID
	groups := []globalsearch.ReduceGroup{
		{Round: 1, Index: 0, AnswerCount: 2, Candidates: []globalsearch.Candidate{
			{Usefulness: 90, CommunityIDs: []string{"a", "b"}, Answer: "A and B [Data: Communities (a, b)] 中文"},
			{Usefulness: 40, CommunityIDs: []string{"c"}, Answer: "C"}}},
		{Round: 1, Index: 1, AnswerCount: 1, Candidates: []globalsearch.Candidate{{Usefulness: 30, CommunityIDs: []string{"d"}, Answer: "D"}}},
	}
	require.NoError(t, s.SaveReduceGroups(ctx, "q-tree", run, groups))
	require.NoError(t, s.SaveReduceGroups(ctx, "q-tree", run, []globalsearch.ReduceGroup{{Round: 2, Index: 0, AnswerCount: 3,
		Candidates: []globalsearch.Candidate{{Usefulness: 90, CommunityIDs: []string{"a"}, Answer: "AB"}}}}))
	for _, g := range groups {
		got, err := s.ReduceGroup(ctx, "q-tree", run, g.Round, g.Index)
		require.NoError(t, err)
		assert.Equal(t, g, got)
	}
	_, err := s.ReduceGroup(ctx, "q-tree", "other-run", 1, 0)
	assertNotFound(t, err, "a reduce group of another run")
	_, err = s.ReduceGroup(ctx, "q-tree", run, 1, 2)
	assertNotFound(t, err, "a reduce group never saved")

	attempts := []globalsearch.GroupAnswer{
		{Round: 1, Index: 1, Calls: 1, InputTokens: 10, Error: "model output: not JSON", ErrorKind: globalsearch.KindModelOutput},
		{Round: 1, Index: 0, Calls: 1, InputTokens: 30, OutputTokens: 5, Done: true, Answer: "AB [Data: Communities (a)]",
			Usefulness: 90, CitedCommunityIDs: []string{"a"}, InvalidCitations: 1},
		{Round: 1, Index: 1, Calls: 1, InputTokens: 12, Error: "model: throttled", ErrorKind: globalsearch.KindThrottled},
		{Round: 2, Index: 0, Calls: 1, InputTokens: 7, OutputTokens: 2, Done: true, Answer: "all", Usefulness: 90},
	}
	for _, a := range attempts {
		require.NoError(t, s.AddGroupAnswer(ctx, "q-tree", run, a))
	}
	require.NoError(t, s.AddGroupAnswer(ctx, "q-tree", "other-run", globalsearch.GroupAnswer{Round: 1, Index: 0, Calls: 1, Done: true, Answer: "z"}))
	got, err := s.GroupAnswers(ctx, "q-tree", run)
	require.NoError(t, err)
	assert.Equal(t, []globalsearch.GroupAnswer{
		{Round: 1, Index: 0, Calls: 1, InputTokens: 30, OutputTokens: 5, Done: true, Answer: "AB [Data: Communities (a)]",
			Usefulness: 90, CitedCommunityIDs: []string{"a"}, InvalidCitations: 1},
		{Round: 1, Index: 1, Calls: 2, InputTokens: 22, Error: "model: throttled", ErrorKind: globalsearch.KindThrottled},
		{Round: 2, Index: 0, Calls: 1, InputTokens: 7, OutputTokens: 2, Done: true, Answer: "all", Usefulness: 90},
	}, got)
	next := samplePlan("q-tree", 0)
	next.RunID = "run-q-tree-next"
	require.NoError(t, s.SavePlan(ctx, next))
	_, err = s.ReduceGroup(ctx, "q-tree", run, 1, 0)
	assertNotFound(t, err, "a reduce group of a replaced run")
	fresh, err := s.GroupAnswers(ctx, "q-tree", next.RunID)
	require.NoError(t, err)
	assert.Empty(t, fresh, "a new run starts with no group answers")
	none, err := s.GroupAnswers(ctx, "q-tree-none", run)
	require.NoError(t, err)
	assert.Empty(t, none, "group answers are per query id")
}
