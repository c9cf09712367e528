package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The runs half of the suite: requests, answers, results and reduce
// counts (plans are in plans.go).

func sampleParams(queryID string) globalsearch.Params {
	return globalsearch.Params{
		QueryID: queryID, Query: "What are the main themes?", Namespace: "default",
		CommunityLevel: globalsearch.LeafLevel, MapTokenBudget: 8000, ReduceTokenBudget: 8000,
		MapOutputReserve: 512, ReduceOutputReserve: 1024, MapConcurrency: 4,
		ShuffleSeed: -9_007_199_254_740_993, Shuffle: true,
	}
}

func testCreateRequest(t *testing.T, s Store) {
	ctx := context.Background()
	first := sampleParams("q-1")
	first.CommunityLevel = 2
	got, created, err := s.CreateRequest(ctx, first, "")
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, first, got)

	second := sampleParams("q-1")
	second.Query = "a different question"
	got, created, err = s.CreateRequest(ctx, second, "")
	require.NoError(t, err)
	assert.False(t, created, "the second create finds the first")
	assert.Equal(t, first, got, "the stored request wins")

	stored, err := s.Request(ctx, "q-1")
	require.NoError(t, err)
	assert.Equal(t, first, stored)
}

func testNotFound(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-other", 2)))
	tests := []struct {
		name string
		call func() error
	}{
		{"request", func() error { _, err := s.Request(ctx, "q-missing"); return err }},
		{"plan", func() error { _, err := s.Plan(ctx, "q-missing"); return err }},
		{"batch of a missing plan", func() error { _, err := s.Batch(ctx, "q-missing", 0); return err }},
		{"batch past the end", func() error { _, err := s.Batch(ctx, "q-other", 2); return err }},
		{"negative batch", func() error { _, err := s.Batch(ctx, "q-other", -1); return err }},
		{"result", func() error { _, err := s.Result(ctx, "q-missing"); return err }},
		{"result of a run without one", func() error { _, err := s.Result(ctx, "q-other"); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertNotFound(t, tc.call(), tc.name)
		})
	}
	answers, err := s.MapAnswers(ctx, "q-missing", "r")
	require.NoError(t, err)
	assert.Empty(t, answers, "a run without answers has none, not an error")
}

func sampleAnswer(i int, text string) globalsearch.MapAnswer {
	a := globalsearch.MapAnswer{
		BatchIndex: i, CommunityIDs: []string{fmt.Sprintf("c%d", i)}, Answer: text,
		CitedCommunityIDs: []string{fmt.Sprintf("c%d", i)}, DroppedCitations: i % 3,
		Usefulness: float64(i) + 0.5, Attempts: 1 + i%2, InputTokens: 1000 + i, OutputTokens: 50,
		// The instants of reduce's timeline (docs/contract.md#timeline);
		// every fourth answer is cached, with no call.
		CalledAt:   time.Date(2025, 3, 4, 5, 6, 10+i, 123456789, time.UTC),
		AnsweredAt: time.Date(2025, 3, 4, 5, 6, 12+i, 987654321, time.UTC),
	}
	if i%4 == 3 {
		a.Cached, a.CalledAt, a.InputTokens, a.OutputTokens = true, time.Time{}, 0, 0
	}
	return a
}

func testMapAnswers(t *testing.T, s Store) {
	ctx := context.Background()
	const n = 12
	// Saved in reverse so that completion order differs from batch order.
	for i := n - 1; i >= 0; i-- {
		require.NoError(t, s.SaveMapAnswer(ctx, "q-ans", "r1", sampleAnswer(i, fmt.Sprintf("answer %d", i))))
	}
	overwrite := sampleAnswer(3, "answer 3, retried")
	overwrite.Usefulness = 0
	overwrite.CommunityIDs = []string{}
	require.NoError(t, s.SaveMapAnswer(ctx, "q-ans", "r1", overwrite))
	// Another run of the same query id, whose id extends this one's.
	require.NoError(t, s.SaveMapAnswer(ctx, "q-ans", "r10", sampleAnswer(0, "other run")))

	got, err := s.MapAnswers(ctx, "q-ans", "r1")
	require.NoError(t, err)
	require.Len(t, got, n)
	for i, a := range got {
		assert.Equal(t, i, a.BatchIndex, "answers are ordered by batch index")
	}
	assert.Equal(t, "answer 3, retried", got[3].Answer)
	assert.Zero(t, got[3].Usefulness)
	assert.Empty(t, got[3].CommunityIDs)
	assert.Equal(t, sampleAnswer(10, "answer 10"), got[10])
	assert.Equal(t, sampleAnswer(7, "answer 7"), got[7], "a cached answer, which has no call instant")
	other, err := s.MapAnswers(ctx, "q-ans", "r10")
	require.NoError(t, err)
	assert.Equal(t, []globalsearch.MapAnswer{sampleAnswer(0, "other run")}, other, "runs keep their own answers")
}

func sampleResult(queryID string, batches int) globalsearch.Result {
	started := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	r := globalsearch.Result{
		QueryID: queryID, Namespace: "default", Query: "What are the main themes?",
		CommunityLevel: globalsearch.LeafLevel, Status: globalsearch.StatusPartial,
		Answer:             "Themes: growth, risk.",
		SelectedMapAnswers: []globalsearch.SelectedAnswer{{Answer: "growth", Usefulness: 72.5, CommunityIDs: []string{"c1", "c2"}, CitedCommunityIDs: []string{"c2"}}},
		FailedMapBatches:   1,
		MapErrors:          []globalsearch.BatchFailure{{BatchIndex: 1, CommunityIDs: []string{"c3"}, Message: "model output is not valid JSON: oops"}},
		Diagnostics: globalsearch.Diagnostics{
			SummaryCount: 3 * batches, BatchCount: batches, ShuffleSeed: 42,
			ModelCalls: batches + 2, InputTokens: 12345, OutputTokens: 678,
			Map: globalsearch.StageUsage{ModelCalls: batches + 1}, Reduce: globalsearch.StageUsage{ModelCalls: 1},
			AvailableLevels: []int{0, 1}, StartedAt: started, FinishedAt: started.Add(1500 * time.Millisecond),
			Timeline: globalsearch.Timeline{StartedAt: started, PrepareSeconds: new(0.25), FirstMapCallSeconds: new(0.3),
				MapSeconds: new(0.9), ReduceSeconds: new(0.275)},
			Coverage: globalsearch.Coverage{
				CommunitiesSelected: 3 * batches, CommunitiesInNamespace: 4 * batches, Claims: 9, Excerpts: 8, Documents: 2,
				MapAnswers: &globalsearch.MapAnswerCoverage{
					Useful: batches - 1, ReachedReduce: 1, SkippedForBudget: batches - 2, Failed: 1,
				},
				CitedCommunities: 1, CitedDocuments: 1,
			},
			Usage: globalsearch.Usage{
				ModelID: "bedrock:model-a", SystemPrompt: globalsearch.CodePoints{ASCII: 300, NonASCII: 2},
				Map:    globalsearch.StageEstimate{Calls: batches - 1, EstimatedInputTokens: 7000, ReportedInputTokens: 7700, Ratio: 1.1, WorstBatchRatio: 1.25, WorstBatchIndex: new(int)},
				Reduce: globalsearch.StageEstimate{Calls: 1, EstimatedInputTokens: 500, ReportedInputTokens: 550, Ratio: 1.1},
			},
		},
	}
	for i := range batches {
		r.Diagnostics.Batches = append(r.Diagnostics.Batches, globalsearch.BatchSummary{
			CommunityIDs:    []string{fmt.Sprintf("community-%06d", 3*i), fmt.Sprintf("community-%06d", 3*i+1), fmt.Sprintf("community-%06d", 3*i+2)},
			EstimatedTokens: 7000 + i%400,
			ASCIICodePoints: 20000 + i, NonASCIICodePoints: 1000 + i, ReportedInputTokens: 7100 + i%300,
		})
		r.Diagnostics.MapScores = append(r.Diagnostics.MapScores, globalsearch.MapScore{BatchIndex: i, Usefulness: float64(i % 101)})
	}
	return r
}

func testResult(t *testing.T, s Store) {
	ctx := context.Background()
	first := sampleResult("q-res", 3)
	require.NoError(t, s.SaveResult(ctx, first, ""))
	got, err := s.Result(ctx, "q-res")
	require.NoError(t, err)
	assert.Equal(t, first, got)

	second := sampleResult("q-res", 2)
	second.Status = globalsearch.StatusCompleted
	second.FailedMapBatches, second.MapErrors = 0, []globalsearch.BatchFailure{}
	require.NoError(t, s.SaveResult(ctx, second, ""))
	got, err = s.Result(ctx, "q-res")
	require.NoError(t, err)
	assert.Equal(t, second, got)
}

func testReduceCalls(t *testing.T, s Store) {
	ctx := context.Background()
	n, err := s.ReduceCalls(ctx, "q-calls", "r1")
	require.NoError(t, err)
	assert.Zero(t, n, "a run that never reduced has made no reduce call")

	require.NoError(t, s.SavePlan(ctx, samplePlan("q-calls", 1)))
	for want := 1; want <= 3; want++ {
		got, err := s.AddReduceCall(ctx, "q-calls", "r1")
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	n, err = s.ReduceCalls(ctx, "q-calls", "r1")
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	other, err := s.ReduceCalls(ctx, "q-other-calls", "r1")
	require.NoError(t, err)
	assert.Zero(t, other, "counts are per query id")
	other, err = s.ReduceCalls(ctx, "q-calls", "r2")
	require.NoError(t, err)
	assert.Zero(t, other, "counts are per run")
}

// testNewPlanCleanRun plans a query id again (docs/contract.md#query-ids): nothing of the
// earlier run (answers, reduce count, result) is read as the new run's,
// including what a task of the earlier run writes after the new plan.
func testNewPlanCleanRun(t *testing.T, s Store) {
	ctx := context.Background()
	first := samplePlan("q-again", 3)
	require.NoError(t, s.SavePlan(ctx, first))
	for i := range 3 {
		require.NoError(t, s.SaveMapAnswer(ctx, "q-again", first.RunID, sampleAnswer(i, "old")))
	}
	_, err := s.AddReduceCall(ctx, "q-again", first.RunID)
	require.NoError(t, err)
	require.NoError(t, s.SaveResult(ctx, sampleResult("q-again", 3), first.RunID), "the current run saves its result")

	second := samplePlan("q-again", 2)
	second.RunID = "run-second"
	for i := range second.Batches {
		second.Batches[i].RunID = second.RunID
	}
	require.NoError(t, s.SavePlan(ctx, second))

	got, err := s.Plan(ctx, "q-again")
	require.NoError(t, err)
	assert.Equal(t, second, got)
	b, err := s.Batch(ctx, "q-again", 1)
	require.NoError(t, err)
	assert.Equal(t, "run-second", b.RunID, "a batch names the run of its plan")
	_, err = s.Result(ctx, "q-again")
	assertNotFound(t, err, "the earlier run's result")
	answers, err := s.MapAnswers(ctx, "q-again", second.RunID)
	require.NoError(t, err)
	assert.Empty(t, answers, "the new run starts without answers")
	n, err := s.ReduceCalls(ctx, "q-again", second.RunID)
	require.NoError(t, err)
	assert.Zero(t, n, "the new run counts reduce calls from 0")
	// The replaced run's answers and reduce count are deleted, not only
	// out of the new run's reach.
	answers, err = s.MapAnswers(ctx, "q-again", first.RunID)
	require.NoError(t, err)
	assert.Empty(t, answers, "the replaced run's answers are deleted")
	n, err = s.ReduceCalls(ctx, "q-again", first.RunID)
	require.NoError(t, err)
	assert.Zero(t, n, "the replaced run's reduce count is deleted")

	// Late writers of the earlier run.
	require.NoError(t, s.SaveMapAnswer(ctx, "q-again", first.RunID, sampleAnswer(0, "late")))
	_, err = s.AddReduceCall(ctx, "q-again", first.RunID)
	require.NoError(t, err)
	err = s.SaveResult(ctx, sampleResult("q-again", 3), first.RunID)
	assertNotFound(t, err, "a result of the earlier run")
	answers, err = s.MapAnswers(ctx, "q-again", second.RunID)
	require.NoError(t, err)
	assert.Empty(t, answers, "a late answer of the earlier run stays out")
	n, err = s.ReduceCalls(ctx, "q-again", second.RunID)
	require.NoError(t, err)
	assert.Zero(t, n, "a late reduce call of the earlier run is not counted")
	_, err = s.Result(ctx, "q-again")
	assertNotFound(t, err, "after a late result of the earlier run")

	want := sampleResult("q-again", 2)
	want.Answer = "second run"
	require.NoError(t, s.SaveResult(ctx, want, second.RunID))
	res, err := s.Result(ctx, "q-again")
	require.NoError(t, err)
	assert.Equal(t, want, res)
}

// testFailureEndsRun records a failure without a run (prepare refusing a
// request it owns): the run planned before it can no longer save a result.
func testFailureEndsRun(t *testing.T, s Store) {
	ctx := context.Background()
	assertNotFound(t, s.SaveResult(ctx, sampleResult("q-never-planned", 1), "some-run"), "a run that was never planned")

	plan := samplePlan("q-ended", 1)
	require.NoError(t, s.SavePlan(ctx, plan))
	failed := sampleResult("q-ended", 0)
	failed.Status, failed.Error = globalsearch.StatusFailed, "corrupt index"
	require.NoError(t, s.SaveResult(ctx, failed, ""))
	assertNotFound(t, s.SaveResult(ctx, sampleResult("q-ended", 1), plan.RunID), "a result of the ended run")
	got, err := s.Result(ctx, "q-ended")
	require.NoError(t, err)
	assert.Equal(t, failed, got)
}

func testSeedGeneratedNotStored(t *testing.T, s Store) {
	ctx := context.Background()
	p := sampleParams("q-seed")
	p.SeedGenerated = true
	got, created, err := s.CreateRequest(ctx, p, "")
	require.NoError(t, err)
	require.True(t, created)
	assert.True(t, got.SameRequest(p))
	stored, err := s.Request(ctx, "q-seed")
	require.NoError(t, err)
	assert.False(t, stored.SeedGenerated, "a stored request has its seed fixed")
	again, created, err := s.CreateRequest(ctx, p, "")
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, stored, again)
}

// testLargeResult saves the diagnostics of the largest plan the state
// machine accepts (25,000 history events at ~7 per batch: ~3,500 batches).
func testLargeResult(t *testing.T, s Store) {
	ctx := context.Background()
	want := sampleResult("q-large-result", 3600)
	require.NoError(t, s.SaveResult(ctx, want, ""))
	got, err := s.Result(ctx, "q-large-result")
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func testRunsSeparate(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-a", 2)))
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-a-b", 3)))
	require.NoError(t, s.SaveMapAnswer(ctx, "q-a", "r", sampleAnswer(0, "a")))
	require.NoError(t, s.SaveMapAnswer(ctx, "q-a-b", "r", sampleAnswer(1, "ab")))
	require.NoError(t, s.SaveResult(ctx, sampleResult("q-a-b", 1), ""))

	p, err := s.Plan(ctx, "q-a")
	require.NoError(t, err)
	assert.Len(t, p.Batches, 2)
	answers, err := s.MapAnswers(ctx, "q-a", "r")
	require.NoError(t, err)
	assert.Equal(t, []globalsearch.MapAnswer{sampleAnswer(0, "a")}, answers)
	_, err = s.Result(ctx, "q-a")
	assertNotFound(t, err, "result of another run")
}
