package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The index half of the suite: globalsearch.Index, IndexWriter and
// NamespaceLister.

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
	// A search read in steps tells the versions apart by name
	// (docs/contract.md#selection-steps).
	oldV, okOld := snap.(globalsearch.VersionedSnapshot)
	newV, okNew := fresh.(globalsearch.VersionedSnapshot)
	require.True(t, okOld && okNew, "the store's snapshots name their version")
	assert.NotEqual(t, oldV.Version(), newV.Version())
	again, err := s.Open(ctx, "ns")
	require.NoError(t, err)
	assert.Equal(t, newV.Version(), again.(globalsearch.VersionedSnapshot).Version(), "one version, one name")
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
