package wiring

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// The deployed functions build one model at start (newModel); each run's
// promptCache and service tiers reach the wire of its own map and reduce
// calls, through the real SDK client against a Converse double, as the
// state machine runs prepare, map and reduce (docs/contract.md#prompt-cache,
// #service-tiers).
func TestDeployedFunctionsHonourTheRequestsSettings(t *testing.T) {
	fake := modeltest.NewConverseServer(t, func(c modeltest.ConverseCall) modeltest.ConverseReply {
		body, _ := json.Marshal(c.Body)
		if strings.Contains(string(body), "intermediate_answers") {
			return modeltest.ConverseText(`{"answer":"final answer"}`, 10, 2)
		}
		return modeltest.ConverseText(`{"answer":"partial answer","usefulness":50}`, 10, 2)
	})
	cfg := aws.Config{Region: "us-east-1", Credentials: testenv.StaticCredentials(), BaseEndpoint: aws.String(fake.URL)}
	model, err := newModel(cfg, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	require.NoError(t, err)
	require.IsType(t, &bedrock.Model{}, model)
	assert.Equal(t, bedrock.QuotaWaitMaxAttempts, model.(*bedrock.Model).MaxAttempts(), "the deployed functions wait out an empty quota")
	s := memstore.New()
	text := strings.Repeat("Trade and growth shaped the decade. ", 55)
	require.NoError(t, s.ReplaceNamespace(context.Background(), "ns", globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "a", Summary: text}, {ID: "b", Summary: text}, {ID: "c", Summary: text},
	}}))
	d := globalsearch.SpecDefaults
	d.Namespace, d.MapTokenBudget, d.MapOutputReserve = "ns", 1200, 0
	h := &workflow.Handlers{Engine: &globalsearch.Engine{Index: s, Runs: s, Model: model, MaxBatches: workflow.InlineMaxBatches}, Defaults: d}

	tests := []struct {
		name, request           string
		wantPoint               bool
		wantTTL                 any
		wantMapTier, wantReduce any
		wantCache               string
	}{
		{"cache off, flex map, priority reduce", `{"query":"What grew?","queryId":"off-flex","promptCache":"off","mapServiceTier":"flex","reduceServiceTier":"priority"}`,
			false, nil, map[string]any{"type": "flex"}, map[string]any{"type": "priority"}, "off"},
		{"an hour's cache, no tier", `{"query":"What grew?","queryId":"hour","promptCache":"1h"}`,
			true, "1h", nil, nil, "1h"},
		{"the function's own: 5m, no tier", `{"query":"What grew?","queryId":"own"}`,
			true, nil, nil, nil, "5m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			before := fake.Count()
			out, err := h.Prepare(ctx, workflow.PrepareInput{Request: json.RawMessage(tc.request)})
			require.NoError(t, err)
			require.Len(t, out.BatchIndexes, 3)
			var results []workflow.MapResult
			for _, i := range out.BatchIndexes {
				_, err := h.Map(ctx, workflow.MapInput{QueryID: out.QueryID, RunID: out.RunID, BatchIndex: i, Attempt: 1})
				require.NoError(t, err)
				results = append(results, workflow.MapResult{BatchIndex: i, Usefulness: 50})
			}
			_, err = h.Reduce(ctx, workflow.ReduceInput{QueryID: out.QueryID, RunID: out.RunID, MapResults: results})
			require.NoError(t, err)

			calls := fake.Calls()[before:]
			require.Len(t, calls, 4, "three map calls and the reduce")
			for _, c := range calls[:3] {
				content := c.Body["messages"].([]any)[0].(map[string]any)["content"].([]any)
				if !tc.wantPoint {
					assert.Len(t, content, 1, "no cache point")
				} else {
					require.Len(t, content, 3)
					assert.Equal(t, tc.wantTTL, content[1].(map[string]any)["cachePoint"].(map[string]any)["ttl"])
				}
				assert.Equal(t, tc.wantMapTier, c.Body["serviceTier"])
			}
			assert.Equal(t, tc.wantReduce, calls[3].Body["serviceTier"])

			res, err := s.Result(ctx, out.QueryID)
			require.NoError(t, err)
			assert.Equal(t, globalsearch.StatusCompleted, res.Status)
			assert.Equal(t, tc.wantCache, res.Diagnostics.Map.PromptCache)
			assert.Equal(t, tc.wantMapTier != nil, res.Diagnostics.Map.ServiceTier != "")
		})
	}
}
