package offline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
)

func rate(t *testing.T, query, content string, maxTokens int) (globalsearch.Ratings, error) {
	t.Helper()
	req := globalsearch.ModelRequest{Stage: globalsearch.StageRate, Query: query, Content: content,
		Parts: globalsearch.MapParts(content), MaxTokens: maxTokens}
	resp, err := offline.New().Complete(context.Background(), req)
	if err != nil {
		return globalsearch.Ratings{}, err
	}
	var ids []string
	for _, p := range req.Parts {
		ids = append(ids, p.CommunityID)
	}
	r, err := globalsearch.ParseRatingOutput(resp.Text, ids)
	require.NoError(t, err, "the reply follows the rating contract")
	require.Zero(t, r.Unknown)
	require.Len(t, r.Scores, len(uniqueIDs(ids)), "every community rated")
	return r, nil
}

func uniqueIDs(ids []string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

const (
	windPart = "[Community ID: wind | summary part 1]\nSorrel Bank wind farm\nFishers objected to exclusion zones at Sorrel Bank."
	portPart = "[Community ID: port | summary part 1]\nThe port\nFishers land herring at the port."
	teaPart  = "[Community ID: tea | summary part 1]\nTea gardens\nThe hills grow green tea."
	question = "What did the fishers object to at Sorrel Bank?"
)

// The offline model rates each community of a rating call by the evidence
// its map answer would come from (docs/contract.md#dynamic-selection): no
// query term scores 0, any match at least 1, more of the question scores
// higher, and a community is rated the same in any company.
func TestOfflineRatesByEvidence(t *testing.T) {
	r, err := rate(t, question, windPart+"\n"+portPart+"\n"+teaPart, 0)
	require.NoError(t, err)
	assert.Zero(t, r.Scores["tea"], "no query term")
	assert.GreaterOrEqual(t, r.Scores["port"], 1.0, "one term still counts")
	assert.Greater(t, r.Scores["wind"], r.Scores["port"], "the whole question beats one word of it")
	alone, err := rate(t, question, windPart, 0)
	require.NoError(t, err)
	assert.Equal(t, alone.Scores["wind"], r.Scores["wind"], "rated alone or in a batch, the same")
}

// A community split over parts is rated by its best part; a reply over the
// reserve fails as any offline answer does.
func TestOfflineRatingEdges(t *testing.T) {
	const q = "Who objected to exclusion zones?"
	split, err := rate(t, q, "[Community ID: wind | summary part 1]\nThe wind farm has turbines.\n[Community ID: wind | summary part 2]\nFishers objected to exclusion zones.", 0)
	require.NoError(t, err)
	best, err := rate(t, q, "[Community ID: wind | summary part 2]\nFishers objected to exclusion zones.", 0)
	require.NoError(t, err)
	assert.Equal(t, best.Scores["wind"], split.Scores["wind"])
	assert.Positive(t, best.Scores["wind"])

	_, err = rate(t, q, windPart, 3)
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err))
	assert.Equal(t, "offline model stopped at maxTokens 3: the rate output reserve was too small for its answer", err.Error())
}
