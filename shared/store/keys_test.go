package store

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Struct tags cannot name a constant: the key types must still encode to
// the attribute names the tables (and the template) are keyed by.
func TestKeyTypesUseTheKeyAttributes(t *testing.T) {
	index, err := attributevalue.MarshalMap(indexKey{Namespace: "n", SK: "s"})
	require.NoError(t, err)
	run, err := attributevalue.MarshalMapWithOptions(runKey{QueryID: "q", SK: "s"}, jsonTags)
	require.NoError(t, err)
	full, err := attributevalue.MarshalMapWithOptions(runItem{QueryID: "q", SK: "s", ExpiresAt: 1}, jsonTags)
	require.NoError(t, err)
	tests := []struct {
		name string
		item item
		want []string
	}{
		{"index key", index, []string{attrNamespace, attrSK}},
		{"runs key", run, []string{attrQueryID, attrSK}},
		{"runs item", full, []string{attrQueryID, attrSK, TTLAttribute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for k := range tc.item {
				got = append(got, k)
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}
}

// The plan item embeds globalsearch.Plan but holds neither its batches
// (items of their own) nor its owner (the result item's): exactly the
// attributes it held when the header listed its fields by hand, and the
// map input's coverage, which the reduce step completes (docs/contract.md#coverage),
// and prepare's end, which its timeline reads (docs/contract.md#timeline).
func TestPlanItemAttributes(t *testing.T) {
	p := globalsearch.Plan{
		RunID: "r", Owner: "exec", Params: globalsearch.Params{QueryID: "q"}, SummaryCount: 2,
		Batches: []globalsearch.Batch{{Content: "c"}},
		IndexNotes: globalsearch.IndexNotes{OrphanClaims: 1, MissingChunks: 2, AvailableLevels: []int{0},
			EmptyNamespace: true, AvailableNamespaces: []string{"a"}},
		CreatedAt: time.Unix(1, 0), PlannedAt: time.Unix(2, 0),
	}
	header := planHeader{Plan: p, BatchCount: 1}
	m, err := attributevalue.MarshalMapWithOptions(header, jsonTags)
	require.NoError(t, err)
	var got []string
	for k := range m {
		got = append(got, k)
	}
	assert.ElementsMatch(t, []string{"runId", "request", "summaryCount", "batchCount", "orphanClaims", "missingChunks",
		"availableLevels", "createdAt", "plannedAt", "emptyNamespace", "availableNamespaces", "coverage"}, got)

	var back planHeader
	require.NoError(t, attributevalue.UnmarshalMapWithOptions(m, &back, jsonTagsDec))
	assert.Equal(t, p.IndexNotes, back.IndexNotes)
	assert.Equal(t, p.RunID, back.RunID)
	assert.Equal(t, 1, back.BatchCount)
	assert.True(t, p.PlannedAt.Equal(back.PlannedAt), "plannedAt %s", back.PlannedAt)
	assert.Empty(t, back.Plan.Batches)
	assert.Empty(t, back.Plan.Owner)
}
