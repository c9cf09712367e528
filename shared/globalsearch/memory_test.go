package globalsearch_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// Amplifying indexes: small files whose map texts, built naively, are huge.

// manyClaimsOneChunk: one leaf whose claims all cite one large chunk; the
// map text holds the chunk once.
func manyClaimsOneChunk(claims, chunkBytes int) gs.Records {
	r := gs.Records{
		Summaries: []gs.Summary{{ID: "leaf", Summary: "The ledger."}},
		Chunks:    []gs.Chunk{{ID: "big", Text: strings.Repeat("coal ", chunkBytes/5)}},
	}
	for i := range claims {
		r.Claims = append(r.Claims, gs.Claim{ID: fmt.Sprintf("k%05d", i), CommunityID: "leaf", Subject: "Scrooge",
			Description: fmt.Sprintf("entry %d", i), SourceChunkIDs: []string{"big"}})
	}
	return r
}

// oneChunkManyLeaves: every leaf has a claim citing the same large chunk,
// so every map text repeats it.
func oneChunkManyLeaves(leaves, chunkBytes int) gs.Records {
	r := gs.Records{Chunks: []gs.Chunk{{ID: "big", Text: strings.Repeat("coal ", chunkBytes/5)}}}
	for i := range leaves {
		id := fmt.Sprintf("c%04d", i)
		r.Summaries = append(r.Summaries, gs.Summary{ID: id, Summary: "A leaf."})
		r.Claims = append(r.Claims, gs.Claim{ID: "k" + id, CommunityID: id, Subject: "Marley", Description: "d", SourceChunkIDs: []string{"big"}})
	}
	return r
}

// flatChain: a chain of summaries all at level 0 over one leaf whose claims
// cite a large chunk; selecting level 0 would repeat the leaf's claims and
// excerpts in every summary of the chain.
func flatChain(depth, claims, chunkBytes int) gs.Records {
	r := gs.Records{Chunks: []gs.Chunk{{ID: "big", Text: strings.Repeat("coal ", chunkBytes/5)}}}
	for i := range depth {
		s := gs.Summary{ID: fmt.Sprintf("c%04d", i), Summary: "A link."}
		if i > 0 {
			s.ParentCommunityID = fmt.Sprintf("c%04d", i-1)
		}
		r.Summaries = append(r.Summaries, s)
	}
	for i := range claims {
		r.Claims = append(r.Claims, gs.Claim{ID: fmt.Sprintf("k%04d", i), CommunityID: fmt.Sprintf("c%04d", depth-1),
			Subject: "Fezziwig", Description: "d", SourceChunkIDs: []string{"big"}})
	}
	return r
}

func fileSize(t testing.TB, r gs.Records) int {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, indexfile.Write(&buf, indexfile.File{Namespace: "default", Records: r}))
	return buf.Len()
}

// planAllocs plans once and returns the bytes allocated while planning.
func planAllocs(t *testing.T, e *gs.Engine, p gs.Params) (uint64, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := e.Plan(context.Background(), p)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// docs/contract.md#plan-limits: prepare's memory stays within a small multiple of the index
// file, whatever the index asks for; what cannot fit is refused before it
// is built. TotalAlloc counts every byte allocated, so it bounds the peak.
// About 4 bytes per file byte are allocated (6.5 under -race, whose
// instrumentation allocates too); before the map-text size counted each
// chunk once per map text, the first case allocated 449.
func TestPrepareMemoryOnAmplifyingIndexes(t *testing.T) {
	const maxPerFileByte = 8
	tests := []struct {
		name     string
		records  gs.Records
		level    gs.Level
		ceiling  int64
		wantKind gs.Kind // KindInternal: the plan succeeds
		wantText string
	}{
		{"2,000 claims citing one 100 KB chunk", manyClaimsOneChunk(2000, 100_000), gs.LeafLevel, 0, gs.KindInternal, ""},
		{"one 100 KB chunk cited from 200 leaves, 4 MiB ceiling", oneChunkManyLeaves(200, 100_000), gs.LeafLevel, 4 << 20,
			gs.KindPlanTooLarge, fmt.Sprintf("the map texts of 200 summaries hold %d bytes but this deployment plans at most 4194304 (the map-text ceiling of 4194304 bytes)",
				200*(len("[Community summary]\nA leaf.\n\n[Supporting claims]\n- Marley: d\n\n[Source excerpts]\n- (big) ")+100_000))},
		{"a chain of 100 level-0 summaries over 20 claims citing a 20 KB chunk", flatChain(100, 20, 20_000), 0, 0,
			gs.KindCorruptIndex, "corrupt index: a child's level must be greater than its parent's: c0001 (level 0) under c0000 (level 0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size := fileSize(t, tc.records)
			s := memstore.New()
			require.NoError(t, s.ReplaceNamespace(context.Background(), "default", tc.records))
			p := benchParams(tc.level, "amplify")
			p.Namespace = "default"
			alloc, err := planAllocs(t, &gs.Engine{Index: s, MaxMapTextBytes: tc.ceiling}, p)
			if tc.wantKind == gs.KindInternal {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, gs.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantText)
			}
			t.Logf("file %d bytes, plan allocated %d bytes (%.1f per file byte)", size, alloc, float64(alloc)/float64(size))
			assert.LessOrEqual(t, alloc, uint64(maxPerFileByte*size))
		})
	}
}

// The bound derived from MaxBatches never refuses a plan that fits: map
// texts of 4-byte runes (the most bytes per estimated token) that pack
// into exactly k batches are planned with MaxBatches k, and refused by
// their size, before packing, when far over it.
func TestMapTextBoundFollowsTheBatchLimit(t *testing.T) {
	var r gs.Records
	for i := range 30 {
		r.Summaries = append(r.Summaries, gs.Summary{ID: fmt.Sprintf("c%02d", i), Summary: strings.Repeat("😀", 500+37*i)})
	}
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", r))
	p := benchParams(gs.LeafLevel, "bound")
	p.Namespace, p.MapTokenBudget, p.MapOutputReserve = "default", 1000, 0
	unlimited, err := (&gs.Engine{Index: s}).Plan(context.Background(), p)
	require.NoError(t, err)
	k := len(unlimited.Batches)
	require.Greater(t, k, 4)

	plan, err := (&gs.Engine{Index: s, MaxBatches: k}).Plan(context.Background(), p)
	require.NoError(t, err, "a plan of exactly MaxBatches batches is never refused by its size")
	assert.Len(t, plan.Batches, k)

	_, err = (&gs.Engine{Index: s, MaxBatches: 1}).Plan(context.Background(), p)
	require.Error(t, err)
	assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err))
	assert.Contains(t, err.Error(), "plans at most 7200 (1 batches of at most 7200 bytes at mapPromptBudget 1000: raise mapTokenBudget)")
}

// BenchmarkPrepareAmplifying reports prepare's allocation per byte of index
// file on an index whose claims all cite one large chunk.
func BenchmarkPrepareAmplifying(b *testing.B) {
	records := manyClaimsOneChunk(20_000, 200_000)
	size := fileSize(b, records)
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), "default", records); err != nil {
		b.Fatal(err)
	}
	e := &gs.Engine{Index: s}
	p := benchParams(gs.LeafLevel, "amplify")
	p.Namespace = "default"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if _, err := e.Plan(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "alloc/file-byte")
}
