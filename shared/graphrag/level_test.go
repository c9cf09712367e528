package graphrag_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// The rows of GraphRAG's own output that its global search selects by
// (docs/contract.md#graphrag-level), read straight from the parquet files,
// apart from the import.
type communityRow struct {
	Community int64    `parquet:"community"`
	Level     int64    `parquet:"level"`
	EntityIDs []string `parquet:"entity_ids,list"`
}

type reportRow struct {
	Community int64 `parquet:"community"`
	Level     int64 `parquet:"level"`
}

// graphRAGSelection is what GraphRAG's global search maps at community
// level n, computed as its read_indexer_reports computes it: the
// communities and reports at level n or coarser; for each entity the
// community with the largest id among them (ids grow with the level, so
// the finest); the reports of those communities.
func graphRAGSelection(communities []communityRow, reports []reportRow, n int64) int {
	finest := map[string]int64{}
	for _, c := range communities {
		if c.Level > n {
			continue
		}
		for _, e := range c.EntityIDs {
			if id, ok := finest[e]; !ok || c.Community > id {
				finest[e] = c.Community
			}
		}
	}
	kept := map[int64]bool{}
	for _, id := range finest {
		kept[id] = true
	}
	count := 0
	for _, r := range reports {
		if r.Level <= n && kept[r.Community] {
			count++
		}
	}
	return count
}

// TestGraphRAGLevelIsGraphRAGsSelection: at every level of each real
// corpus (and one past the deepest), communityLevel "graphrag:N" plans
// exactly the reports GraphRAG's rule selects from the same folder.
func TestGraphRAGLevelIsGraphRAGsSelection(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  func(testing.TB) string
	}{
		{"christmas carol", func(tb testing.TB) string { return corpus.Dir(tb, corpus.ChristmasCarol) }},
		{"operation dulce", func(tb testing.TB) string { return corpus.Optional(tb, "dulce") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			communities, err := parquet.ReadFile[communityRow](filepath.Join(dir, "communities.parquet"))
			require.NoError(t, err)
			reports, err := parquet.ReadFile[reportRow](filepath.Join(dir, "community_reports.parquet"))
			require.NoError(t, err)
			records, _, err := graphrag.Import(context.Background(), dir, graphrag.Options{})
			require.NoError(t, err)
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(context.Background(), "default", records))
			deepest := slices.MaxFunc(reports, func(a, b reportRow) int { return int(a.Level - b.Level) }).Level
			for n := int64(0); n <= deepest+1; n++ {
				want := graphRAGSelection(communities, reports, n)
				level := globalsearch.GraphRAGLevel(int(n))
				p, err := globalsearch.Request{Query: "What are the main themes?", CommunityLevel: &level}.Params(globalsearch.SpecDefaults)
				require.NoError(t, err)
				plan, err := (&globalsearch.Engine{Index: store}).Plan(context.Background(), p)
				require.NoError(t, err)
				assert.Equal(t, want, plan.SummaryCount, "level %d", n)
				atLevel := 0
				for _, r := range reports {
					if r.Level == n {
						atLevel++
					}
				}
				require.NotNil(t, plan.GraphRAGLevel)
				assert.Equal(t, globalsearch.LevelSplit{Level: level, AtLevel: atLevel, LeavesAbove: want - atLevel}, *plan.GraphRAGLevel, "level %d", n)
				t.Logf("graphrag:%d selects %d of %d reports", n, plan.SummaryCount, len(reports))
			}
		})
	}
}
