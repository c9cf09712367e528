// Package modeltest is the conformance suite every globalsearch.Model
// passes: the offline model, and the Bedrock and OpenAI-compatible adapters
// against fake servers. A model that passes answers each stage in the
// output shape the engine validates (docs/contract.md#model-output, docs/contract.md#reduce-call), reports its usage
// and stop reason, and gives up on a cancelled call. ConverseServer is the
// one fake Converse (Bedrock runtime) endpoint of the tests; ChattyAnswer and
// SearchAttempts measure what schema output saves (docs/contract.md#structured-output).
package modeltest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Query is the question every request of the suite asks. A fake server
// answers it with an answer that names Sorrel Bank and cites c-wind.
const Query = "What powers Sorrel Bank?"

// Requests are the calls the suite makes: a map call over a one-part batch
// and a reduce call over two candidates, each rendered with the project's
// prompts, as the engine sends them.
func Requests() []globalsearch.ModelRequest {
	prompts := globalsearch.DefaultPrompts()
	content := "[Community ID: c-wind | summary part 1]\n[Community summary]\n" +
		"Sorrel Bank is an offshore wind farm of 72 turbines. It powers the desalination plant at Port Calder."
	candidates := []globalsearch.Candidate{
		globalsearch.NewCandidate(globalsearch.MapAnswer{Usefulness: 80, CommunityIDs: []string{"c-wind"},
			Answer: "Sorrel Bank is an offshore wind farm of 72 turbines."}),
		globalsearch.NewCandidate(globalsearch.MapAnswer{Usefulness: 40, CommunityIDs: []string{"c-water"},
			Answer: "Sorrel Bank powers the desalination plant at Port Calder."}),
	}
	var rendered []string
	for _, c := range candidates {
		rendered = append(rendered, c.Render())
	}
	reduceContent := rendered[0] + "\n\n" + rendered[1]
	return []globalsearch.ModelRequest{
		{Stage: globalsearch.StageMap, Query: Query, Content: content,
			Prompt: prompts.Map.Render(Query, content), Parts: globalsearch.MapParts(content), MaxTokens: 512},
		{Stage: globalsearch.StageReduce, Query: Query, Content: reduceContent,
			Prompt: prompts.Reduce.Render(Query, reduceContent), Candidates: candidates, MaxTokens: 1024},
	}
}

// Run runs the suite against the models newModel returns, one per subtest.
func Run(t *testing.T, newModel func(t *testing.T) globalsearch.Model) {
	for _, req := range Requests() {
		t.Run(string(req.Stage)+" answers in the stage's shape", func(t *testing.T) {
			resp, err := newModel(t).Complete(context.Background(), req)
			require.NoError(t, err)
			if req.Stage == globalsearch.StageMap {
				answer, usefulness, err := globalsearch.ParseMapOutput(resp.Text)
				require.NoError(t, err, resp.Text)
				assert.Positive(t, usefulness, "the batch answers the query")
				assert.Contains(t, answer, "Sorrel Bank")
			} else {
				answer, err := globalsearch.ParseReduceOutput(resp.Text)
				require.NoError(t, err, resp.Text)
				assert.Contains(t, answer, "Sorrel Bank")
				// docs/contract.md#citations: the answer cites its candidates' communities,
				// and only those.
				cited := globalsearch.ParseCitations(answer)
				assert.NotEmpty(t, cited, "the answer cites communities")
				for _, id := range cited {
					assert.Contains(t, []string{"c-wind", "c-water"}, id, "cited id is a candidate's")
				}
			}
			assert.Positive(t, resp.InputTokens, "input usage")
			assert.Positive(t, resp.OutputTokens, "output usage")
			assert.NotEmpty(t, resp.StopReason)
		})
		t.Run(string(req.Stage)+" gives up on a cancelled call", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			resp, err := newModel(t).Complete(ctx, req)
			require.Error(t, err)
			assert.Empty(t, resp.Text)
		})
	}
}
