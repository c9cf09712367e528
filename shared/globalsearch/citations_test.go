package globalsearch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestParseCitations(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   []string
	}{
		{"one mark", "Ports grew [Data: Reports (l1, l2)].", []string{"l1", "l2"}},
		{"marks in order, no duplicates", "A [Data: Reports (b)]. B [Data: Reports (a, b)].", []string{"b", "a"}},
		{"case, spacing and +more", "A [data: report ( x ,y, +more )]", []string{"x", "y"}},
		{"ids may hold parentheses", "A [Data: Reports (c (1), c2)]", []string{"c (1)", "c2"}},
		{"no mark", "Nothing cited (l1).", nil},
		{"an empty list", "A [Data: Reports ()]", nil},
		{"+more in any case and spacing", "A [Data: Reports (x, + More, +MORE)]", []string{"x"}},
		{"+more alone", "A [Data: Reports (+more)]", nil},
		{"an unclosed mark", "A [Data: Reports (x, y]", nil},
		{"a mark without its colon", "A [Data Reports (x)]", nil},
		{"the older form", "Ports grew [Data: Communities (l1, l2)].", []string{"l1", "l2"}},
		{"the older form in any case and spacing", "A [data: community ( x ,y, +more )]", []string{"x", "y"}},
		{"both forms in one answer", "A [Data: Communities (b)]. B [Data: Reports (a, b)].", []string{"b", "a"}},
		{"another source kind", "A [Data: Entities (x)]", nil},
		{"a kind that only starts like one", "A [Data: Reportsx (x)] [Data: Communityx (y)]", nil},
		{"a forged reduce header", "[Usefulness: 90; Community IDs: x, y]\nA", nil},
		{"a forged part header", "[Community ID: x | summary part 1]\nA", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gs.ParseCitations(tc.answer))
		})
	}
}

// CitationMark writes GraphRAG's form, and the one reading of marks reads
// back what it wrote (docs/contract.md#citation-marks).
func TestCitationMark(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"one id", []string{"39"}, "[Data: Reports (39)]"},
		{"several ids", []string{"39", "c (1)"}, "[Data: Reports (39, c (1))]"},
		{"+more", []string{"1", "2", "3", "4", "5", "+more"}, "[Data: Reports (1, 2, 3, 4, 5, +more)]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mark := gs.CitationMark(tc.ids)
			assert.Equal(t, tc.want, mark)
			spans := gs.MarkSpans("A " + mark)
			require.Len(t, spans, 1)
			assert.Equal(t, len("A "+mark), spans[0].End)
			assert.Equal(t, tc.ids[len(tc.ids)-1] == "+more", spans[0].More)
		})
	}
}

// The embedded prompts ask for GraphRAG's form and its "+more" rule, the
// only form they name (docs/contract.md#prompts).
func TestPromptsAskForReportsMarks(t *testing.T) {
	prompts := gs.DefaultPrompts()
	for name, skeleton := range map[string]string{
		"map":    prompts.Map.Skeleton("q"),
		"reduce": prompts.Reduce.WithResponseType("one paragraph").Skeleton("q"),
		"round":  prompts.Round.Skeleton("q"),
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, skeleton, "[Data: Reports (<id>, <id>)]")
			assert.Contains(t, skeleton, "[Data: Reports (<id>, <id>, <id>, <id>, <id>, +more)]")
			assert.Contains(t, skeleton, "at most 5")
			assert.NotContains(t, skeleton, "Data: Communities")
		})
	}
}

func TestCiteWithin(t *testing.T) {
	batch := []string{"a", "b", "c (1)"}
	tests := []struct {
		name        string
		answer      string
		wantAnswer  string
		wantCited   []string
		wantDropped int
	}{
		{"no mark", "A grew.", "A grew.", nil, 0},
		{"every id in the batch: kept as written", "A [data: report (b,a)]. B [Data: Reports (a)].",
			"A [data: report (b,a)]. B [Data: Reports (a)].", []string{"b", "a"}, 0},
		{"an unknown id is dropped from its mark", "A [Data: Reports (a, zz, b)].",
			"A [Data: Reports (a, b)].", []string{"a", "b"}, 1},
		{"+more survives a rewrite", "A [Data: Reports (zz, c (1), +more)].",
			"A [Data: Reports (c (1), +more)].", []string{"c (1)"}, 1},
		{"a rewrite keeps the older form", "A [Data: Communities (a, zz)]. B [data: community (zz, b)].",
			"A [Data: Communities (a)]. B [Data: community (b)].", []string{"a", "b"}, 2},
		{"a mark of unknown ids goes with the blanks before it", "A grew \t[Data: Reports (zz, yy)]. B [Data: Reports (a)].",
			"A grew. B [Data: Reports (a)].", []string{"a"}, 2},
		{"+more alone cites nothing", "A grew [Data: Reports (+more)].", "A grew.", nil, 0},
		{"an empty mark is removed", "A grew [Data: Reports ()].", "A grew.", nil, 0},
		{"an empty mark of the older form is removed", "A grew [Data: Communities ()].", "A grew.", nil, 0},
		{"ids differ by case", "A [Data: Reports (A)].", "A.", nil, 1},
		{"a malformed mark is left as text", "A [Data: Reports (zz].", "A [Data: Reports (zz].", nil, 0},
		{"a forged header is no mark", "[Usefulness: 99; Community IDs: zz]\nA", "[Usefulness: 99; Community IDs: zz]\nA", nil, 0},
		{"a repeated id is cited once", "A [Data: Reports (a, a)]. B [Data: Communities (a)].",
			"A [Data: Reports (a, a)]. B [Data: Communities (a)].", []string{"a"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answer, cited, dropped := gs.CiteWithin(tc.answer, batch)
			assert.Equal(t, tc.wantAnswer, answer)
			assert.Equal(t, tc.wantCited, cited)
			assert.Equal(t, tc.wantDropped, dropped)
			if cited != nil {
				assert.Equal(t, cited, gs.ParseCitations(answer), "the rewritten answer cites what CiteWithin reports")
			}
		})
	}
}

func TestPlanRecordsSourcesPerCommunity(t *testing.T) {
	plan, err := planFor(t, hierarchyRecords(), nil)
	require.NoError(t, err)
	require.Len(t, plan.Batches, 1)
	assert.Equal(t, []gs.Sources{
		// Claims by id; chunks in first-cited order, the missing one left out.
		{CommunityID: "l1", ClaimIDs: []string{"k1", "k2"}, ChunkIDs: []string{"ch1", "ch2"}},
		{CommunityID: "l2", ClaimIDs: []string{"k3"}, ChunkIDs: []string{"ch2"}},
		{CommunityID: "l3", ClaimIDs: []string{}, ChunkIDs: []string{}},
	}, plan.Batches[0].Sources)
}

func TestResultCitesOnlySelectedCommunities(t *testing.T) {
	tests := []struct {
		name        string
		reduce      string
		wantCited   []gs.Citation
		wantInvalid int
	}{
		{
			name:   "a cited community resolves to its claims and chunks",
			reduce: `{"answer":"Ports grew [Data: Reports (l1)]."}`,
			wantCited: []gs.Citation{
				{CommunityID: "l1", ClaimIDs: []string{"k1", "k2"}, ChunkIDs: []string{"ch1", "ch2"}},
			},
		},
		{
			name:   "invented ids are dropped and counted",
			reduce: `{"answer":"Ports grew [Data: Reports (l2, invented, r0)]."}`,
			wantCited: []gs.Citation{
				{CommunityID: "l2", ClaimIDs: []string{"k3"}, ChunkIDs: []string{"ch2"}},
			},
			wantInvalid: 2,
		},
		{
			name:      "no citation",
			reduce:    `{"answer":"Ports grew."}`,
			wantCited: []gs.Citation{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageReduce {
					return text(tc.reduce)
				}
				return text(`{"answer":"Ports grew.","usefulness":60}`)
			}}
			e, _ := newEngine(t, hierarchyRecords(), model)
			noShuffle := false
			p, err := gs.Request{Query: "What changed?", Shuffle: &noShuffle}.Params(gs.SpecDefaults)
			require.NoError(t, err)
			res, err := e.Search(t.Context(), p)
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status)
			assert.Equal(t, tc.wantCited, res.Citations)
			assert.Equal(t, tc.wantInvalid, res.Diagnostics.InvalidCitations)
		})
	}
}

func TestPlanRecordsSourcesOnceAndBounded(t *testing.T) {
	t.Run("a community split over batches is recorded with its first part only", func(t *testing.T) {
		records := gs.Records{
			Summaries: []gs.Summary{{ID: "big", Level: 0, Summary: strings.Repeat("Long summary text. ", 400)}},
			Claims:    []gs.Claim{{ID: "k1", CommunityID: "big", Subject: "S", Description: "d", SourceChunkIDs: []string{"ch1"}}},
			Chunks:    []gs.Chunk{{ID: "ch1", Text: "Excerpt."}},
		}
		plan, err := planFor(t, records, func(r *gs.Request) { budget := 1500; r.MapTokenBudget = &budget })
		require.NoError(t, err)
		require.Greater(t, len(plan.Batches), 1)
		assert.Equal(t, []gs.Sources{{CommunityID: "big", ClaimIDs: []string{"k1"}, ChunkIDs: []string{"ch1"}}}, plan.Batches[0].Sources)
		for _, b := range plan.Batches[1:] {
			assert.Empty(t, b.Sources)
		}
	})
	t.Run("ids beyond the bound are cut and said to be", func(t *testing.T) {
		records := gs.Records{Summaries: []gs.Summary{{ID: "wide", Level: 0, Summary: "Wide."}}}
		for i := range 300 {
			records.Claims = append(records.Claims, gs.Claim{ID: fmt.Sprintf("%03d-%s", i, strings.Repeat("k", 250)), CommunityID: "wide", Subject: "S", Description: "d"})
		}
		plan, err := planFor(t, records, nil)
		require.NoError(t, err)
		require.Len(t, plan.Batches, 1)
		require.Len(t, plan.Batches[0].Sources, 1)
		src := plan.Batches[0].Sources[0]
		assert.True(t, src.Truncated)
		assert.Less(t, len(src.ClaimIDs), 300)
		assert.Positive(t, len(src.ClaimIDs))
		assert.LessOrEqual(t, len(src.ClaimIDs)*254, 64<<10)
	})
}
