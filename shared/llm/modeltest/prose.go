package modeltest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// ChattyAnswer is what a chatty model answers the seq-th call (1-based) of
// a server: a valid answer for the prompt's stage, but on every third call
// wrapped in prose unless the call asked for schema output. The prose
// cites before the JSON, as such models do, so the tolerant parser
// (docs/contract.md#model-output) cannot read around it: the attempt fails.
func ChattyAnswer(seq int, prompt string, askedSchema bool) string {
	answer := `{"answer":"Sorrel Bank is an offshore wind farm [Data: Reports (c-wind)].","usefulness":60}`
	if strings.Contains(prompt, "<intermediate_answers>") {
		answer = `{"answer":"Sorrel Bank is an offshore wind farm [Data: Reports (c-wind)]."}`
	}
	if askedSchema || seq%3 != 0 {
		return answer
	}
	return "Based on the data [Data: Reports (c-wind)], here is my answer:\n" + answer + "\nI hope this helps!"
}

// SampleIndex is the repository's sample index, from a test of a package
// under shared/llm (tests run in their package's directory).
const SampleIndex = "../../../testdata/sample-index.json"

// SearchAttempts runs one whole search of namespace with e (its Index, Runs
// and Model set by the caller), one map call at a time so that the calls
// come in batch order, under a map budget small enough to make many batches
// of the sample index. It returns the batches and the map calls they took,
// and requires the search to complete with every batch answered.
func SearchAttempts(t testing.TB, e *globalsearch.Engine, namespace string) (batches, mapCalls int) {
	t.Helper()
	level, seed, budget, one, noCache := globalsearch.LeafLevel, int64(7), 1600, 1, false
	p, err := globalsearch.Request{Query: Query, Namespace: namespace, CommunityLevel: &level, ShuffleSeed: &seed,
		MapTokenBudget: &budget, MapConcurrency: &one, Cache: &noCache}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	res, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
	require.Zero(t, res.FailedMapBatches)
	return res.Diagnostics.BatchCount, res.Diagnostics.Map.ModelCalls
}
