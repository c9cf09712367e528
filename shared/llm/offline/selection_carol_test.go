package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// maxTargetedShare is the most a targeted question's dynamic selection may
// send, rating input and map input together, against the map input of
// every leaf (docs/dynamic-selection.md).
const maxTargetedShare = 0.40

// carolSelection runs a dynamic selection of query over the Christmas
// Carol output imported with content, as run --seed 1 does, and returns
// the result and the summaries by id.
func carolSelection(t *testing.T, content graphrag.Content, query string) (globalsearch.Result, map[string]globalsearch.Summary) {
	t.Helper()
	records, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{Content: content})
	require.NoError(t, err)
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), "carol", records))
	selection, seed := globalsearch.SelectionDynamic, int64(1)
	p, err := globalsearch.Request{Query: query, Namespace: "carol", Selection: &selection, ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	res, err := (&globalsearch.Engine{Index: store, Runs: store, Model: New()}).Search(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
	byID := map[string]globalsearch.Summary{}
	for _, s := range records.Summaries {
		byID[s.ID] = s
	}
	return res, byID
}

// The three targeted questions of docs/dynamic-selection.md's table cost at
// most 40% of the leaf plan's map input with their rating input counted,
// and still map every community whose title names the person asked about
// (the community itself, a community above it or one below it). Imported
// with full_content, the rating reads GraphRAG's summary column, so it
// rates and selects the same communities for the same rating input.
func TestCarolTargetedSelectionShare(t *testing.T) {
	tests := []struct{ query, person string }{
		{"What does Marley's ghost warn Scrooge about?", "Marley"},
		{"How does Scrooge treat Bob Cratchit?", "Bob Cratchit"},
		{"What happens to Tiny Tim?", "Tiny Tim"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res, byID := carolSelection(t, graphrag.ContentSummary, tc.query)
			s := res.Diagnostics.Selection
			require.Positive(t, s.LeafMapInputTokens)
			share := float64(s.InputTokens()) / float64(s.LeafMapInputTokens)
			t.Logf("rated %d in %d calls, rating input %d + map input %d = %d of %d (%.1f%%), %d selected",
				s.Rated, s.RatingCalls, s.RatingInputTokens, s.MapInputTokens, s.InputTokens(), s.LeafMapInputTokens, 100*share, s.Selected)
			assert.LessOrEqual(t, share, maxTargetedShare)
			mapped := map[string]bool{}
			for _, b := range res.Diagnostics.Batches {
				for _, id := range b.CommunityIDs {
					mapped[id] = true
				}
			}
			titled := 0
			for id, sum := range byID {
				if strings.Contains(sum.Title, tc.person) {
					titled++
					assert.True(t, reached(byID, mapped, id), "community %s (%q) is mapped", id, sum.Title)
				}
			}
			require.Positive(t, titled, "some title names %s", tc.person)

			full, _ := carolSelection(t, graphrag.ContentFullContent, tc.query)
			fs := full.Diagnostics.Selection
			assert.Equal(t, s.Rated, fs.Rated)
			assert.Equal(t, s.RatingInputTokens, fs.RatingInputTokens, "the same short forms rated")
			assert.Equal(t, s.Selected, fs.Selected)
			assert.Greater(t, fs.MapInputTokens, s.MapInputTokens, "the map reads the whole report")
		})
	}
}

// reached reports whether summary id's text reaches the map: it, a summary
// above it (whose map text holds the claims of every leaf below) or one
// below it is mapped.
func reached(byID map[string]globalsearch.Summary, mapped map[string]bool, id string) bool {
	for up := id; up != ""; up = byID[up].ParentCommunityID {
		if mapped[up] {
			return true
		}
	}
	for other := range mapped {
		for up := byID[other].ParentCommunityID; up != ""; up = byID[up].ParentCommunityID {
			if up == id {
				return true
			}
		}
	}
	return false
}
