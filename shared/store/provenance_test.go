package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// citingModel answers each map batch citing the community named cite (its
// first community when the batch lacks it) and an id of no batch; reduce
// cites cite. Whatever order the shuffle gives the parts, the map answer
// and the reduce answer cite the same community.
type citingModel struct{ cite string }

func (m citingModel) Complete(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if req.Stage == globalsearch.StageReduce {
		return globalsearch.ModelResponse{Text: `{"answer":"Solar rose ` + globalsearch.CitationMark([]string{m.cite}) + `."}`}, nil
	}
	cited := req.Parts[0].CommunityID
	for _, part := range req.Parts {
		if part.CommunityID == m.cite {
			cited = m.cite
		}
	}
	return globalsearch.ModelResponse{Text: `{"answer":"Solar rose ` +
		globalsearch.CitationMark([]string{cited, "zz"}) + `.","usefulness":50}`}, nil
}

// TestReduceStepReadsProvenanceFromTheRunsTable runs the steps as the
// Lambdas do, each reading only the runs table: the reduce step resolves
// citations to claims, chunks and documents, and reports coverage, from
// what prepare and map stored (docs/contract.md#coverage).
func TestReduceStepReadsProvenanceFromTheRunsTable(t *testing.T) {
	ctx := context.Background()
	client := testenv.Minidyn(t)
	s := newStores(t, client, newTables(t, client))
	records := globalsearch.Records{
		Summaries: []globalsearch.Summary{
			{ID: "solar", Level: 0, Summary: "Solar farms replaced diesel generators."},
			{ID: "fish", Level: 0, Summary: "The fleet shrank."},
		},
		Claims: []globalsearch.Claim{
			{ID: "k1", CommunityID: "solar", Subject: "Grid", Description: "solar share rose", SourceChunkIDs: []string{"c1", "c2"}},
			{ID: "k2", CommunityID: "fish", Subject: "Fleet", Description: "shrank", SourceChunkIDs: []string{"c3"}},
		},
		Chunks: []globalsearch.Chunk{
			{ID: "c1", Text: "By 2030 solar met half of demand.", DocumentID: "report-2030"},
			{ID: "c2", Text: "Diesel imports fell.", DocumentID: "report-2031"},
			{ID: "c3", Text: "Boats were sold.", DocumentID: "report-2030"},
		},
	}
	require.NoError(t, s.ReplaceNamespace(ctx, "default", records))
	e := &globalsearch.Engine{Index: s.Index, Runs: s.Runs, Model: citingModel{cite: "solar"}}
	p, err := globalsearch.Request{QueryID: "q-prov", Query: "What changed?"}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)

	out, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	for i := range out.BatchCount {
		_, err := e.MapBatch(ctx, p.QueryID, out.RunID, i, 1)
		require.NoError(t, err)
	}
	res, err := e.Reduce(ctx, p.QueryID, out.RunID, nil)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status)
	assert.Equal(t, []globalsearch.Citation{{
		CommunityID: "solar", ClaimIDs: []string{"k1"}, ChunkIDs: []string{"c1", "c2"}, DocumentIDs: []string{"report-2030", "report-2031"},
	}}, res.Citations)
	assert.Equal(t, 1, res.Diagnostics.Map.DroppedCitations, "zz, from the one batch")
	assert.Equal(t, globalsearch.Coverage{
		CommunitiesSelected: 2, CommunitiesInNamespace: 2, Claims: 2, Excerpts: 3, Documents: 2,
		MapAnswers:       &globalsearch.MapAnswerCoverage{Useful: 1, ReachedReduce: 1},
		CitedCommunities: 1, CitedDocuments: 2,
	}, res.Diagnostics.Coverage)

	stored, err := s.Result(ctx, p.QueryID)
	require.NoError(t, err)
	assert.Equal(t, res.Diagnostics.Coverage, stored.Diagnostics.Coverage)
}
