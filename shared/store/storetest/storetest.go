// Package storetest is the conformance suite of the stores: every
// implementation of globalsearch.Index, IndexWriter and Runs (the embedded
// memstore, the DynamoDB adapter on each emulator) runs the same Run, so
// the twin cannot drift from the real thing.
package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Store is what a conforming store implements.
type Store interface {
	globalsearch.Index
	globalsearch.IndexWriter
	globalsearch.Runs
	globalsearch.NamespaceLister
	// Each reads one kind of a namespace's current version, as Open and
	// the snapshot's method of that name do.
	Summaries(ctx context.Context, namespace string) ([]globalsearch.Summary, error)
	Claims(ctx context.Context, namespace string) ([]globalsearch.Claim, error)
	Chunks(ctx context.Context, namespace string, ids []string) ([]globalsearch.Chunk, error)
}

type config struct{ skipLarge bool }

// Option configures Run.
type Option func(*config)

// SkipLarge leaves out the subtests that write more than 1 MB (those that
// make a DynamoDB store read several pages), for slow backends.
func SkipLarge() Option { return func(c *config) { c.skipLarge = true } }

// Run runs the suite. open returns an empty store; it is called once per
// subtest, and subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) Store, opts ...Option) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	tests := []struct {
		name  string
		large bool
		run   func(t *testing.T, s Store)
	}{
		{"index round trip", false, testIndexRoundTrip},
		{"nonexistent namespace reads empty", false, testNonexistentNamespace},
		{"namespaces are separate", false, testNamespacesSeparate},
		{"replace removes old records", false, testReplaceRemovesOld},
		{"replace with invalid records writes nothing", false, testReplaceInvalid},
		{"replace without summaries is refused and deletes nothing", false, testReplaceEmpty},
		{"delete empties a namespace", false, testDeleteNamespace},
		{"a snapshot reads one version across a replace", false, testSnapshotAcrossReplace},
		{"namespaces lists those holding records", false, testNamespaces},
		{"request created then existing", false, testCreateRequest},
		{"not found", false, testNotFound},
		{"plan round trip past ten batches", false, testPlanRoundTrip},
		{"plan saved again replaces it", false, testPlanReplaced},
		{"plan without batches", false, testPlanEmpty},
		{"plan metadata is the plan without content", false, testPlanMeta},
		{"callers' changes never reach the store", false, testMutationIsolation},
		{"map answers ordered and overwritten", false, testMapAnswers},
		{"result round trip and overwrite", false, testResult},
		{"reduce calls count per run", false, testReduceCalls},
		{"a new plan starts a clean run", false, testNewPlanCleanRun},
		{"a recorded failure ends the run", false, testFailureEndsRun},
		{"generated seed flag is not stored", false, testSeedGeneratedNotStored},
		{"runs are separate by query id", false, testRunsSeparate},
		{"large result fits", false, testLargeResult},
		{"large namespace over several pages", true, testLargeNamespace},
		{"large plan and answers over several pages", true, testLargeRuns},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && c.skipLarge {
				t.Skip("large subtests skipped by storetest.SkipLarge")
			}
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

func assertNotFound(t *testing.T, err error, what string) {
	t.Helper()
	require.Error(t, err, what)
	assert.True(t, errors.Is(err, globalsearch.ErrNotFound), "%s: errors.Is(ErrNotFound) for %v", what, err)
	assert.Equal(t, globalsearch.KindNotFound, globalsearch.KindOf(err), "%s: kind of %v", what, err)
}

func byID[T any](id func(T) string) func(a, b T) int {
	return func(a, b T) int { return cmp.Compare(id(a), id(b)) }
}

func sortSummaries(s []globalsearch.Summary) []globalsearch.Summary {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.SortFunc(s, byID(func(v globalsearch.Summary) string { return v.ID }))
	return s
}

func sortClaims(s []globalsearch.Claim) []globalsearch.Claim {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.SortFunc(s, byID(func(v globalsearch.Claim) string { return v.ID }))
	for i := range s {
		// nil and empty mean the same to every caller; stores may keep
		// either.
		if len(s[i].SourceChunkIDs) == 0 {
			s[i].SourceChunkIDs = nil
		}
	}
	return s
}

func sortChunks(s []globalsearch.Chunk) []globalsearch.Chunk {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.SortFunc(s, byID(func(v globalsearch.Chunk) string { return v.ID }))
	return s
}

func sampleRecords() globalsearch.Records {
	return globalsearch.Records{
		Summaries: []globalsearch.Summary{
			{ID: "root", Level: 0, Title: "Root", Summary: "The whole corpus."},
			{ID: "b-leaf", Level: 1, ParentCommunityID: "root", Summary: "Leaf B: 中文 and café."},
			{ID: "a-leaf", Level: 1, ParentCommunityID: "root", Title: "A", Summary: ""},
		},
		Claims: []globalsearch.Claim{
			{ID: "cl2", CommunityID: "b-leaf", Subject: "S2", Description: "no object, no chunks", SourceChunkIDs: nil},
			{ID: "cl1", CommunityID: "a-leaf", Subject: "S1", Object: "O1", Description: "d1", SourceChunkIDs: []string{"ch2", "ch1", "ch2"}},
		},
		Chunks: []globalsearch.Chunk{
			{ID: "ch1", Text: "first chunk", DocumentID: "doc-1"},
			{ID: "ch2", Text: "second chunk"},
			{ID: "ch3", Text: "uncited chunk"},
		},
	}
}

// AssertNamespace checks that namespace ns of s reads exactly want.
func AssertNamespace(t *testing.T, s Store, ns string, want globalsearch.Records) {
	t.Helper()
	ctx := context.Background()
	sums, err := s.Summaries(ctx, ns)
	require.NoError(t, err)
	assert.Equal(t, sortSummaries(want.Summaries), sortSummaries(sums), "summaries of %s", ns)
	claims, err := s.Claims(ctx, ns)
	require.NoError(t, err)
	assert.Equal(t, sortClaims(want.Claims), sortClaims(claims), "claims of %s", ns)
	ids := make([]string, 0, len(want.Chunks))
	for _, c := range want.Chunks {
		ids = append(ids, c.ID)
	}
	chunks, err := s.Chunks(ctx, ns, ids)
	require.NoError(t, err)
	assert.Equal(t, sortChunks(want.Chunks), sortChunks(chunks), "chunks of %s", ns)
}

func testIndexRoundTrip(t *testing.T, s Store) {
	ctx := context.Background()
	r := sampleRecords()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns-a", r))
	AssertNamespace(t, s, "ns-a", r)

	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{"missing ids are absent", []string{"ch1", "nope", "ch3"}, []string{"ch1", "ch3"}},
		{"duplicate ids", []string{"ch2", "ch2"}, []string{"ch2"}},
		{"no ids", nil, nil},
		{"only missing ids", []string{"x", "y"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Chunks(ctx, "ns-a", tc.ids)
			require.NoError(t, err)
			// Each chunk that exists, once, in any order.
			gotIDs := []string{}
			for _, c := range got {
				gotIDs = append(gotIDs, c.ID)
			}
			assert.ElementsMatch(t, tc.want, gotIDs)
		})
	}
}

func testNonexistentNamespace(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.ReplaceNamespace(ctx, "exists", sampleRecords()))
	for _, ns := range []string{"nope", "exist", "exists-not"} {
		sums, err := s.Summaries(ctx, ns)
		require.NoError(t, err)
		assert.Empty(t, sums, ns)
		claims, err := s.Claims(ctx, ns)
		require.NoError(t, err)
		assert.Empty(t, claims, ns)
		chunks, err := s.Chunks(ctx, ns, []string{"ch1", "ch2"})
		require.NoError(t, err)
		assert.Empty(t, chunks, ns)
	}
}

func testNamespacesSeparate(t *testing.T, s Store) {
	ctx := context.Background()
	a := sampleRecords()
	b := globalsearch.Records{
		Summaries: []globalsearch.Summary{{ID: "root", Level: 0, Summary: "other corpus"}},
		Chunks:    []globalsearch.Chunk{{ID: "ch1", Text: "other chunk"}},
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "a", a))
	require.NoError(t, s.ReplaceNamespace(ctx, "b", b))
	AssertNamespace(t, s, "a", a)
	AssertNamespace(t, s, "b", b)
}

func testReplaceRemovesOld(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", sampleRecords()))
	next := globalsearch.Records{
		Summaries: []globalsearch.Summary{
			{ID: "root", Level: 0, Summary: "rewritten"},
			{ID: "new", Level: 1, ParentCommunityID: "root", Summary: "new leaf"},
		},
		Claims: []globalsearch.Claim{{ID: "cl9", CommunityID: "new", Subject: "S9", SourceChunkIDs: []string{"ch2"}}},
		Chunks: []globalsearch.Chunk{{ID: "ch2", Text: "second chunk, edited"}},
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", next))
	AssertNamespace(t, s, "ns", next)
	chunks, err := s.Chunks(ctx, "ns", []string{"ch1", "ch2", "ch3"})
	require.NoError(t, err)
	assert.Equal(t, next.Chunks, chunks, "old chunks are gone")

	// Replacing with the same records again is idempotent.
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", next))
	AssertNamespace(t, s, "ns", next)
}

func testReplaceInvalid(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", sampleRecords()))
	tests := []struct {
		name string
		r    globalsearch.Records
		msg  string
	}{
		{"duplicate summary", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "x"}, {ID: "x"}}}, "duplicate id"},
		{"claim without subject", globalsearch.Records{
			Summaries: []globalsearch.Summary{{ID: "fresh"}},
			Claims:    []globalsearch.Claim{{ID: "c", CommunityID: "fresh"}},
		}, "subject"},
		{"chunk without id", globalsearch.Records{
			Chunks: []globalsearch.Chunk{{ID: "fresh"}, {Text: "no id"}},
		}, `"id" is required`},
		{"summary id that would forge a part header", globalsearch.Records{
			Summaries: []globalsearch.Summary{{ID: "c1 | summary part 2]"}},
		}, `(id "c1 | summary part 2]"): field "id" holds '|'`},
		{"claim id with a newline", globalsearch.Records{
			Claims: []globalsearch.Claim{{ID: "k1\nk2", Subject: "s"}},
		}, `(id "k1\nk2"): field "id" holds the control or line-break character U+000A`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.ReplaceNamespace(ctx, "ns", tc.r)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			AssertNamespace(t, s, "ns", sampleRecords())
		})
	}
}

func testReplaceEmpty(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", sampleRecords()))
	only := sampleRecords()
	only.Summaries = nil
	only.Claims = nil
	for name, r := range map[string]globalsearch.Records{"no records": {}, "only chunks": only} {
		t.Run(name, func(t *testing.T) {
			err := s.ReplaceNamespace(ctx, "ns", r)
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), "no summaries")
			AssertNamespace(t, s, "ns", sampleRecords())
			names, err := s.Namespaces(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"ns"}, names, "still listed")
		})
	}
}

func testDeleteNamespace(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", sampleRecords()))
	require.NoError(t, s.ReplaceNamespace(ctx, "other", sampleRecords()))
	require.NoError(t, s.DeleteNamespace(ctx, "ns"))
	AssertNamespace(t, s, "ns", globalsearch.Records{})
	chunks, err := s.Chunks(ctx, "ns", []string{"ch1", "ch2", "ch3"})
	require.NoError(t, err)
	assert.Empty(t, chunks)
	AssertNamespace(t, s, "other", sampleRecords())
	names, err := s.Namespaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"other"}, names, "a deleted namespace is no longer listed")

	require.NoError(t, s.DeleteNamespace(ctx, "ns"), "deleting again is no error")
	require.NoError(t, s.DeleteNamespace(ctx, "never-written"), "nor deleting what never existed")
	AssertNamespace(t, s, "never-written", globalsearch.Records{})

	require.NoError(t, s.ReplaceNamespace(ctx, "ns", sampleRecords()), "a deleted namespace can be written again")
	AssertNamespace(t, s, "ns", sampleRecords())
}

// testSnapshotAcrossReplace holds a snapshot of the old version while a
// replacement runs to its end: what it reads afterwards is either the
// whole old version, or it says it is no longer intact (and a search reads
// again), never a mix passed off as intact.
func testSnapshotAcrossReplace(t *testing.T, s Store) {
	ctx := context.Background()
	old := sampleRecords()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", old))
	snap, err := s.Open(ctx, "ns")
	require.NoError(t, err)
	next := globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "root", Summary: "the new corpus"}}, Chunks: []globalsearch.Chunk{{ID: "ch1", Text: "new chunk"}}}
	require.NoError(t, s.ReplaceNamespace(ctx, "ns", next))

	sums, err := snap.Summaries(ctx)
	require.NoError(t, err)
	claims, err := snap.Claims(ctx)
	require.NoError(t, err)
	chunks, err := snap.Chunks(ctx, []string{"ch1", "ch2", "ch3"})
	require.NoError(t, err)
	intact, err := snap.Intact(ctx)
	require.NoError(t, err)
	if intact {
		assert.Equal(t, sortSummaries(old.Summaries), sortSummaries(sums), "an intact snapshot read the whole old version")
		assert.Equal(t, sortClaims(old.Claims), sortClaims(claims))
		assert.Equal(t, sortChunks(old.Chunks), sortChunks(chunks))
	}
	for _, c := range chunks {
		assert.NotEqual(t, "new chunk", c.Text, "a snapshot never reads another version's records")
	}

	fresh, err := s.Open(ctx, "ns")
	require.NoError(t, err)
	intact, err = fresh.Intact(ctx)
	require.NoError(t, err)
	assert.True(t, intact, "nothing replaced it since")
	got, err := fresh.Summaries(ctx)
	require.NoError(t, err)
	assert.Equal(t, next.Summaries, got)
}

func testNamespaces(t *testing.T, s Store) {
	ctx := context.Background()
	names, err := s.Namespaces(ctx)
	require.NoError(t, err, "a store that was never written lists none")
	assert.Empty(t, names)

	require.NoError(t, s.ReplaceNamespace(ctx, "b", sampleRecords()))
	require.NoError(t, s.ReplaceNamespace(ctx, "a", sampleRecords()))
	require.NoError(t, s.ReplaceNamespace(ctx, "a", sampleRecords()))
	names, err = s.Namespaces(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a", "b"}, names, "each once")

	require.NoError(t, s.DeleteNamespace(ctx, "b"))
	names, err = s.Namespaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, names, "a deleted namespace is no longer listed")

	require.Error(t, s.ReplaceNamespace(ctx, "c", globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "x"}, {ID: "x"}}}))
	names, err = s.Namespaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, names, "a refused replace lists nothing")
}

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

func samplePlan(queryID string, n int) globalsearch.Plan {
	p := globalsearch.Plan{
		RunID:        "run-" + queryID,
		Params:       sampleParams(queryID),
		SummaryCount: n * 2,
		IndexNotes:   globalsearch.IndexNotes{OrphanClaims: 1, MissingChunks: 2, AvailableLevels: []int{0, 1, 2}},
		CreatedAt:    time.Date(2025, 3, 4, 5, 6, 7, 8000, time.UTC),
		Batches:      []globalsearch.Batch{},
	}
	p.EmptyNamespace, p.AvailableNamespaces = true, []string{"a", "b"}
	for i := range n {
		p.Batches = append(p.Batches, globalsearch.Batch{
			RunID:           p.RunID,
			Index:           i,
			CommunityIDs:    []string{fmt.Sprintf("c%d", 2*i), fmt.Sprintf("c%d", 2*i+1)},
			EstimatedTokens: 100 + i,
			Content:         fmt.Sprintf("[Community ID: c%d | summary part 1]\nbatch %d text", 2*i, i),
		})
	}
	return p
}

func testPlanRoundTrip(t *testing.T, s Store) {
	ctx := context.Background()
	want := samplePlan("q-plan", 12)
	require.NoError(t, s.SavePlan(ctx, want))
	got, err := s.Plan(ctx, "q-plan")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	for i, b := range want.Batches {
		one, err := s.Batch(ctx, "q-plan", i)
		require.NoError(t, err)
		assert.Equal(t, b, one, "batch %d", i)
	}
	req, err := s.Request(ctx, "q-plan")
	require.NoError(t, err)
	assert.Equal(t, want.Params, req, "a saved plan stores its request")

	// Saving the same plan again (a retried prepare) changes nothing.
	require.NoError(t, s.SavePlan(ctx, want))
	got, err = s.Plan(ctx, "q-plan")
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func testPlanMeta(t *testing.T, s Store) {
	ctx := context.Background()
	_, err := s.PlanMeta(ctx, "q-meta")
	assertNotFound(t, err, "metadata of a plan never saved")

	saved := samplePlan("q-meta", 12)
	require.NoError(t, s.SavePlan(ctx, saved))
	want := samplePlan("q-meta", 12)
	for i := range want.Batches {
		want.Batches[i].Content = ""
	}
	got, err := s.PlanMeta(ctx, "q-meta")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// After a smaller plan replaces it, only the new batches are read.
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-meta", 3)))
	got, err = s.PlanMeta(ctx, "q-meta")
	require.NoError(t, err)
	assert.Len(t, got.Batches, 3)
}

// testMutationIsolation changes every slice a caller handed in or got back
// and checks that the store still returns what was saved: a store that
// shares memory with its callers would let one search corrupt another.
func testMutationIsolation(t *testing.T, s Store) {
	ctx := context.Background()
	records := sampleRecords()
	require.NoError(t, s.ReplaceNamespace(ctx, "ns-mut", records))
	plan := samplePlan("q-mut", 3)
	require.NoError(t, s.SavePlan(ctx, plan))

	records.Summaries[0].Summary = "changed after save"
	records.Claims[1].SourceChunkIDs[0] = "changed"
	records.Chunks[0].Text = "changed after save"
	plan.Batches[0].CommunityIDs[0] = "changed"
	plan.Batches[1].Content = "changed after save"
	plan.AvailableLevels[0] = 9
	plan.AvailableNamespaces[0] = "changed"

	sums, err := s.Summaries(ctx, "ns-mut")
	require.NoError(t, err)
	sums[0].Summary = "changed after read"
	claims, err := s.Claims(ctx, "ns-mut")
	require.NoError(t, err)
	for i := range claims {
		if len(claims[i].SourceChunkIDs) > 0 {
			claims[i].SourceChunkIDs[0] = "changed after read"
		}
	}
	chunks, err := s.Chunks(ctx, "ns-mut", []string{"ch1"})
	require.NoError(t, err)
	chunks[0].Text = "changed after read"
	for _, read := range []func(context.Context, string) (globalsearch.Plan, error){s.Plan, s.PlanMeta} {
		got, err := read(ctx, "q-mut")
		require.NoError(t, err)
		got.Batches[0].CommunityIDs[0] = "changed after read"
		got.AvailableLevels[0] = 8
		got.AvailableNamespaces[0] = "changed after read"
	}
	b, err := s.Batch(ctx, "q-mut", 0)
	require.NoError(t, err)
	b.CommunityIDs[0] = "changed after read"

	AssertNamespace(t, s, "ns-mut", sampleRecords())
	got, err := s.Plan(ctx, "q-mut")
	require.NoError(t, err)
	assert.Equal(t, samplePlan("q-mut", 3), got)
	one, err := s.Batch(ctx, "q-mut", 0)
	require.NoError(t, err)
	assert.Equal(t, samplePlan("q-mut", 3).Batches[0], one)
}

func testPlanReplaced(t *testing.T, s Store) {
	ctx := context.Background()
	require.NoError(t, s.SavePlan(ctx, samplePlan("q-re", 12)))
	shorter := samplePlan("q-re", 3)
	shorter.RunID = "run-2"
	for i := range shorter.Batches {
		shorter.Batches[i].RunID = shorter.RunID
	}
	shorter.Params.Query = "replaced"
	shorter.Batches[1].Content = "replaced content"
	require.NoError(t, s.SavePlan(ctx, shorter))
	got, err := s.Plan(ctx, "q-re")
	require.NoError(t, err)
	assert.Equal(t, shorter, got)
	_, err = s.Batch(ctx, "q-re", 5)
	assertNotFound(t, err, "batch of the previous, longer plan")
	b, err := s.Batch(ctx, "q-re", 1)
	require.NoError(t, err)
	assert.Equal(t, "replaced content", b.Content)
}

func testPlanEmpty(t *testing.T, s Store) {
	ctx := context.Background()
	want := samplePlan("q-empty", 0)
	want.AvailableLevels = nil
	require.NoError(t, s.SavePlan(ctx, want))
	got, err := s.Plan(ctx, "q-empty")
	require.NoError(t, err)
	assert.Empty(t, got.Batches)
	got.Batches = want.Batches
	assert.Equal(t, want, got)
	_, err = s.Batch(ctx, "q-empty", 0)
	assertNotFound(t, err, "batch of a plan without batches")
}

func sampleAnswer(i int, text string) globalsearch.MapAnswer {
	return globalsearch.MapAnswer{
		BatchIndex: i, CommunityIDs: []string{fmt.Sprintf("c%d", i)}, Answer: text,
		Usefulness: float64(i) + 0.5, Attempts: 1 + i%2, InputTokens: 1000 + i, OutputTokens: 50,
	}
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
		SelectedMapAnswers: []globalsearch.SelectedAnswer{{Answer: "growth", Usefulness: 72.5, CommunityIDs: []string{"c1", "c2"}}},
		FailedMapBatches:   1,
		MapErrors:          []globalsearch.BatchFailure{{BatchIndex: 1, CommunityIDs: []string{"c3"}, Message: "model output is not valid JSON: oops"}},
		Diagnostics: globalsearch.Diagnostics{
			SummaryCount: 3 * batches, BatchCount: batches, ShuffleSeed: 42,
			ModelCalls: batches + 2, InputTokens: 12345, OutputTokens: 678,
			Map: globalsearch.StageUsage{ModelCalls: batches + 1}, Reduce: globalsearch.StageUsage{ModelCalls: 1},
			AvailableLevels: []int{0, 1}, StartedAt: started, FinishedAt: started.Add(1500 * time.Millisecond),
		},
	}
	for i := range batches {
		r.Diagnostics.Batches = append(r.Diagnostics.Batches, globalsearch.BatchSummary{
			CommunityIDs:    []string{fmt.Sprintf("community-%06d", 3*i), fmt.Sprintf("community-%06d", 3*i+1), fmt.Sprintf("community-%06d", 3*i+2)},
			EstimatedTokens: 7000 + i%400,
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

// largeText is n bytes of text; distinct per seed so nothing dedups it.
func largeText(seed string, n int) string {
	return (seed + " " + strings.Repeat("lorem ipsum dolor sit amet ", n/27+1))[:n]
}

func testLargeNamespace(t *testing.T, s Store) {
	ctx := context.Background()
	const n = 320 // 320 x 4 KB = 1.3 MB of each kind
	var r globalsearch.Records
	for i := range n {
		id := fmt.Sprintf("s%04d", i)
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: id, Level: 0, Summary: largeText(id, 4096)})
		r.Claims = append(r.Claims, globalsearch.Claim{
			ID: fmt.Sprintf("cl%04d", i), CommunityID: id, Subject: "s",
			Description: largeText(id, 4096), SourceChunkIDs: []string{fmt.Sprintf("ch%04d", i)},
		})
		r.Chunks = append(r.Chunks, globalsearch.Chunk{ID: fmt.Sprintf("ch%04d", i), Text: largeText(id, 4096)})
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "big", r))
	AssertNamespace(t, s, "big", r)

	// Replacing with a smaller set deletes the rest across many pages.
	r.Summaries, r.Claims, r.Chunks = r.Summaries[:10], r.Claims[:10], r.Chunks[:10]
	require.NoError(t, s.ReplaceNamespace(ctx, "big", r))
	AssertNamespace(t, s, "big", r)
}

func testLargeRuns(t *testing.T, s Store) {
	ctx := context.Background()
	const n = 300 // 300 x 4 KB = 1.2 MB of batches and as much of answers
	p := samplePlan("q-big", n)
	for i := range p.Batches {
		p.Batches[i].Content = largeText(fmt.Sprint(i), 4096)
		require.NoError(t, s.SaveMapAnswer(ctx, "q-big", p.RunID, sampleAnswer(i, largeText(fmt.Sprint(i), 4096))))
	}
	require.NoError(t, s.SavePlan(ctx, p))
	got, err := s.Plan(ctx, "q-big")
	require.NoError(t, err)
	assert.Equal(t, p, got)
	answers, err := s.MapAnswers(ctx, "q-big", p.RunID)
	require.NoError(t, err)
	require.Len(t, answers, n)
	for i, a := range answers {
		assert.Equal(t, sampleAnswer(i, largeText(fmt.Sprint(i), 4096)), a)
	}
}
