package workflow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// treeFixture adds the namespace "tree": a short root summary over three
// long leaves, so that a low maxMapInputTokens makes "auto" choose the root.
func treeFixture(t *testing.T, model globalsearch.Model) (*workflow.Handlers, func(string) globalsearch.Result) {
	t.Helper()
	h, s := fixture(t, model)
	text := strings.Repeat("Trade and growth shaped the decade. ", 55)
	require.NoError(t, s.ReplaceNamespace(context.Background(), "tree", globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "r", Summary: "The decade in short: trade grew."},
		{ID: "a", Level: 1, ParentCommunityID: "r", Summary: text},
		{ID: "b", Level: 1, ParentCommunityID: "r", Summary: text},
		{ID: "c", Level: 1, ParentCommunityID: "r", Summary: text},
	}}))
	return h, func(id string) globalsearch.Result {
		res, err := s.Result(context.Background(), id)
		require.NoError(t, err)
		return res
	}
}

// The prepare Lambda applies communityLevel "auto" (docs/contract.md#auto-level)
// and the reduce Lambda's result records the level it used.
func TestPrepareHonoursAutoLevel(t *testing.T) {
	cases := []struct {
		name        string
		ceiling     int
		wantBatches int
		wantLevel   globalsearch.Level
	}{
		{"room for the leaves", 100000, 3, globalsearch.LeafLevel},
		{"room for the root only", 1000, 1, globalsearch.GraphRAGLevel(0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, result := treeFixture(t, answering(50))
			out, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1","namespace":"tree","communityLevel":"auto","maxMapInputTokens":`+itoa(tc.ceiling)+`}}`)
			require.NoError(t, err)
			var got workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.Equal(t, tc.wantBatches, got.BatchCount)
			var results []string
			for i := range got.BatchCount {
				r, err := invoke(t, h.Map, `{"queryId":"q1","runId":"`+got.RunID+`","batchIndex":`+itoa(i)+`,"attempt":1}`)
				require.NoError(t, err)
				results = append(results, r)
			}
			_, err = invoke(t, h.Reduce, `{"queryId":"q1","runId":"`+got.RunID+`","mapResults":[`+strings.Join(results, ",")+`]}`)
			require.NoError(t, err)
			res := result("q1")
			assert.Equal(t, globalsearch.StatusCompleted, res.Status)
			assert.Equal(t, globalsearch.AutoLevel, res.CommunityLevel)
			require.NotNil(t, res.Diagnostics.AutoLevel)
			assert.Equal(t, tc.wantLevel, res.Diagnostics.AutoLevel.LevelUsed)
			assert.Len(t, res.Diagnostics.AutoLevel.Ladder, 2, "the leaves, then level 0")
		})
	}
	t.Run("none fits: the run fails as invalid input", func(t *testing.T) {
		h, result := treeFixture(t, answering(50))
		_, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q2","namespace":"tree","communityLevel":"auto","maxMapInputTokens":1}}`)
		require.Error(t, err)
		assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
		assert.Contains(t, err.Error(), "raise maxMapInputTokens to at least")
		assert.Equal(t, globalsearch.StatusFailed, result("q2").Status)
	})
}

// The prepare Lambda holds maxCostUsd to the deployment's prices
// (docs/contract.md#cost-ceiling) before any model call, and the reduce
// Lambda prices the result.
func TestPrepareHoldsTheCostCeiling(t *testing.T) {
	prices := &globalsearch.Prices{Map: globalsearch.Price{In: 3, Out: 15}, Reduce: globalsearch.Price{In: 3, Out: 15}}
	cases := []struct {
		name     string
		prices   *globalsearch.Prices
		ceiling  string
		wantType string
		wantMsg  string
	}{
		{"within", prices, "100", "", ""},
		{"over", prices, "0.01", "PlanTooLargeError", "raise maxCostUsd"},
		{"no prices", nil, "100", "InvalidInputError", "needs the models' prices"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			model := &fakeModel{complete: func(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
				calls++
				return answering(50).Complete(ctx, req)
			}}
			h, result := treeFixture(t, model)
			h.Engine.Prices = tc.prices
			_, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1","maxCostUsd":`+tc.ceiling+`}}`)
			if tc.wantType == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantType, workflow.ErrorType(err))
			assert.Contains(t, err.Error(), tc.wantMsg)
			assert.Zero(t, calls)
			assert.Equal(t, globalsearch.StatusFailed, result("q1").Status)
		})
	}
}
