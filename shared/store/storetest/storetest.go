// Package storetest is the conformance suite of the stores: every
// implementation of globalsearch.Index, IndexWriter and Runs (the embedded
// memstore, the DynamoDB adapter on each emulator) runs the same Run, so
// the twin cannot drift from the real thing.
package storetest

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"

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
	globalsearch.Progress
	globalsearch.Cancels
	globalsearch.StoppedResults
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
		{"the graph round trip", false, testGraphRoundTrip},
		{"a graph record over the bounds is invalid input", false, testGraphBounds},
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
		{"a run saved again with other texts reads the new ones", false, testPlanResavedTexts},
		{"plan without batches", false, testPlanEmpty},
		{"a continuing plan saves over its own run only", false, testPlanContinuesItsRunOnly},
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
		{"map progress counts the current run", false, testMapProgress},
		{"cancel ends a running run only", false, testCancel},
		{"a cancelled result is final", false, testCancelIsFinal},
		{"a stopped execution's record", false, testRecordStopped},
		{"rating batches and ratings by run", false, testRatings},
		{"reduce groups and group answers by run", false, testReduceRounds},
		{"map attempt tallies by run", false, testMapAttempts},
		{"rating, reduce group and map attempt keys out of range are refused", false, testRunItemKeys},
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
			// Rank and size as GraphRAG gives them (docs/contract.md#centrality),
			// and a short form to rate by (docs/contract.md#dynamic-selection).
			{ID: "root", Level: 0, Title: "Root", Summary: "The whole corpus.", Rank: 7.5, Size: 12, ShortSummary: "All of it."},
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
