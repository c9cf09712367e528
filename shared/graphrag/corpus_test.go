package graphrag

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

func corpusDir(tb testing.TB) string {
	tb.Helper()
	return corpus.Dir(tb, corpus.ChristmasCarol)
}

func TestImportChristmasCarol(t *testing.T) {
	dir := corpusDir(t)
	records, report, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)

	assert.Equal(t, 122, report.Summaries)
	assert.Len(t, records.Summaries, 122)
	assert.Equal(t, 98, report.Leaves)
	assert.Equal(t, map[int]int{0: 23, 1: 65, 2: 32, 3: 2}, report.Levels)
	assert.Equal(t, 406, report.Covariates)
	assert.Equal(t, report.Covariates, report.ClaimsAttached+len(report.Unmatched), "every covariate is attached or reported")
	assert.Greater(t, report.ClaimsAttached, 406*3/4, "most claims find a leaf")
	assert.Len(t, records.Claims, report.ClaimsAttached)
	assert.Equal(t, 42, report.TextUnits)
	assert.Equal(t, ExcerptsSourceText, report.Excerpts)
	assert.Positive(t, report.ExcerptChunks)
	assert.Equal(t, report.Chunks, report.ExcerptChunks+report.TextUnits-report.TextUnitsUncited)
	assert.Len(t, records.Chunks, report.Chunks)
	assert.Empty(t, report.Warnings)
	require.NoError(t, records.Validate())
	for _, s := range records.Summaries {
		// GraphRAG rated every report of this corpus (docs/contract.md#centrality).
		assert.Positive(t, s.Rank, "summary %s keeps its rank", s.ID)
		assert.Positive(t, s.Size, "summary %s keeps its size", s.ID)
	}

	// Every claim must land on a leaf of what the store holds, or the search
	// would count it as an orphan (docs/contract.md#map-text).
	store := memstore.New()
	ctx := context.Background()
	require.NoError(t, store.ReplaceNamespace(ctx, "christmas-carol", records))
	summaries, err := store.Summaries(ctx, "christmas-carol")
	require.NoError(t, err)
	claims, err := store.Claims(ctx, "christmas-carol")
	require.NoError(t, err)
	exists, isParent := map[string]bool{}, map[string]bool{}
	for _, s := range summaries {
		exists[s.ID] = true
		if s.ParentCommunityID != "" {
			isParent[s.ParentCommunityID] = true
		}
	}
	for _, s := range summaries {
		if s.ParentCommunityID != "" {
			assert.True(t, exists[s.ParentCommunityID], "summary %s: parent %s exists", s.ID, s.ParentCommunityID)
		}
	}
	require.Len(t, claims, report.ClaimsAttached)
	chunks := map[string]bool{}
	for _, c := range records.Chunks {
		chunks[c.ID] = true
	}
	for _, c := range claims {
		assert.True(t, exists[c.CommunityID] && !isParent[c.CommunityID], "claim %s: community %s is a leaf", c.ID, c.CommunityID)
		// Every claim this corpus attaches has source text or a text unit.
		assert.NotEmpty(t, c.SourceChunkIDs, "claim %s carries its evidence", c.ID)
		for _, id := range c.SourceChunkIDs {
			assert.True(t, chunks[id], "claim %s cites chunk %s", c.ID, id)
		}
	}
}

func TestImportChristmasCarolFullContent(t *testing.T) {
	dir := corpusDir(t)
	short, _, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	full, _, err := Import(context.Background(), dir, Options{Content: ContentFullContent})
	require.NoError(t, err)
	require.Len(t, full.Summaries, len(short.Summaries))
	for i := range full.Summaries {
		assert.Greater(t, len(full.Summaries[i].Summary), len(short.Summaries[i].Summary), "summary %s", full.Summaries[i].ID)
	}
}

// TestChristmasCarolLeafPlan measures what a leaf search maps in each
// excerpt mode: whole text units repeated across summaries made the map
// stage of this small book cost about 277,000 estimated tokens.
func TestChristmasCarolLeafPlan(t *testing.T) {
	dir := corpusDir(t)
	// maxSourceText is the map input a leaf search of this corpus may cost
	// with claims and their excerpts: about one book's worth of summaries,
	// not one per text unit that a summary reaches.
	const maxSourceText = 80_000
	tokens := map[Excerpts]int{}
	for _, mode := range []Excerpts{ExcerptsSourceText, ExcerptsTextUnit, ExcerptsNone} {
		t.Run(string(mode), func(t *testing.T) {
			records, _, err := Import(context.Background(), dir, Options{Excerpts: mode})
			require.NoError(t, err)
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(context.Background(), "default", records))
			noShuffle := false
			p, err := globalsearch.Request{Query: "Who is the protagonist of the story?", Shuffle: &noShuffle}.Params(globalsearch.SpecDefaults)
			require.NoError(t, err)
			plan, err := (&globalsearch.Engine{Index: store}).Plan(context.Background(), p)
			require.NoError(t, err)
			assert.Zero(t, plan.MissingChunks, "every cited chunk is stored")
			assert.Zero(t, plan.OrphanClaims)
			for _, b := range plan.Batches {
				tokens[mode] += b.EstimatedTokens
			}
			t.Logf("%s: %d batches, %d estimated map input tokens", mode, len(plan.Batches), tokens[mode])
		})
	}
	assert.LessOrEqual(t, tokens[ExcerptsSourceText], maxSourceText)
	assert.Less(t, tokens[ExcerptsNone], tokens[ExcerptsSourceText], "excerpts cost something")
	assert.Less(t, tokens[ExcerptsSourceText], tokens[ExcerptsTextUnit])
}

func BenchmarkImportChristmasCarol(b *testing.B) {
	dir := corpusDir(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Import(context.Background(), dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestImportPlacingNoClaimIsInvalidInput: a folder whose claims none can be
// placed is a wrong folder, not an index without claims (docs/contract.md#import):
// here communities.parquet is really the reports file, the mistake of a
// copy by hand, and the import refuses it saying what was likely wrong
// instead of importing 0 of 406 claims with a warning.
func TestImportPlacingNoClaimIsInvalidInput(t *testing.T) {
	src := corpusDir(t)
	tests := []struct {
		name  string
		files map[string]string // file in the folder: file of the corpus it copies
		want  []string
	}{
		{"communities.parquet is the reports", map[string]string{"communities.parquet": "community_reports.parquet"},
			[]string{"none of the 406 claims in covariates.parquet could be placed in a leaf community",
				"335 subject entity is in no community, 71 subject is not an entity",
				"communities.parquet may not be GraphRAG's communities file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{"community_reports.parquet", "communities.parquet", "covariates.parquet", "entities.parquet", "text_units.parquet"} {
				from := name
				if f, ok := tc.files[name]; ok {
					from = f
				}
				data, err := os.ReadFile(filepath.Join(src, from))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
			}
			_, _, err := Import(context.Background(), dir, Options{})
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// BenchmarkImportChristmasCarolSearchOnly is the import run and plan make
// of --graphrag (Options.SearchOnly): no entities, relationships or
// document titles.
func BenchmarkImportChristmasCarolSearchOnly(b *testing.B) {
	dir := corpusDir(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Import(context.Background(), dir, Options{SearchOnly: true}); err != nil {
			b.Fatal(err)
		}
	}
}
