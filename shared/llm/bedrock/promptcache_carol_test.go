package bedrock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// sonnet4 is a Claude Sonnet 4-class model: a 1,024-token minimum and
// Sonnet 4's on-demand prices.
const sonnet4 = "us.anthropic.claude-sonnet-4-20250514-v1:0"

var sonnet4Prices = globalsearch.Prices{
	Map:    globalsearch.Price{In: 0.003, Out: 0.015},
	Reduce: globalsearch.Price{In: 0.003, Out: 0.015},
}

// carolScript answers a map prompt with a map answer and a reduce prompt
// with a final answer, as a model would.
func carolScript(call modeltest.ConverseCall) modeltest.ConverseReply {
	body := strings.Join(callTexts(call), "")
	if strings.Contains(body, "<intermediate_answers>") {
		return modeltest.ConverseText(`{"answer": "Scrooge changes."}`, 0, 8)
	}
	return modeltest.ConverseText(`{"answer": "Scrooge is visited by spirits.", "usefulness": 60}`, 0, 12)
}

func callTexts(call modeltest.ConverseCall) []string {
	var out []string
	msgs, _ := call.Body["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, b := range content {
			if s, ok := b.(map[string]any)["text"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// carolRun asks the questions in turn over Carol at one seed, through the
// real SDK client and a Converse double that caches as Bedrock does, and
// returns each run's map usage and cost.
func carolRun(t testing.TB, setting string, questions []string) ([]globalsearch.StageUsage, []float64) {
	t.Helper()
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	records, _, err := graphrag.Import(context.Background(), dir, graphrag.Options{})
	require.NoError(t, err)
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), "carol", records))

	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cache := &modeltest.PromptCache{MinTokens: 1024, Now: func() time.Time { return clock }}
	fake := modeltest.NewConverseServer(t, cache.Wrap(carolScript))
	m, err := bedrock.New(testConfig(fake.URL), sonnet4, bedrock.WithPromptCache(setting), bedrock.WithMaxBackoff(time.Millisecond))
	require.NoError(t, err)
	prices := sonnet4Prices
	engine := &globalsearch.Engine{Index: store, Runs: store, Model: m, Prices: &prices}
	var usage []globalsearch.StageUsage
	var costs []float64
	seed := int64(7)
	for _, q := range questions {
		p, err := globalsearch.Request{Query: q, Namespace: "carol", ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
		require.NoError(t, err)
		res, err := engine.Search(context.Background(), p)
		require.NoError(t, err)
		require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
		require.NotNil(t, res.Diagnostics.Cost)
		usage = append(usage, res.Diagnostics.Map)
		costs = append(costs, res.Diagnostics.Cost.Map)
		clock = clock.Add(time.Minute) // three questions within five minutes
	}
	return usage, costs
}

var carolQuestions = []string{
	"What are the top themes of the story?",
	"Who was Scrooge's business partner?",
	"What happens to Tiny Tim?",
}

// docs/cost.md#prompt-cache: three questions over Carol at one seed share
// their map batches, so the second and third read the batches from the
// cache; the first pays the cache write.
func TestCarolThreeQuestionsShareTheCache(t *testing.T) {
	base, baseCost := carolRun(t, bedrock.CacheOff, carolQuestions[:1])
	usage, cost := carolRun(t, bedrock.CacheFiveMinute, carolQuestions)
	require.Len(t, usage, 3)
	assert.Zero(t, base[0].CacheReadInputTokens+base[0].CacheWriteInputTokens, "off sends no cache point")
	assert.Positive(t, usage[0].CacheWriteInputTokens)
	assert.Zero(t, usage[0].CacheReadInputTokens)
	assert.Equal(t, bedrock.CacheFiveMinute, usage[0].PromptCache)
	t.Logf("map cost today (off): $%.4f over %d input tokens", baseCost[0], base[0].InputTokens)
	for i, u := range usage {
		t.Logf("question %d: map $%.4f (%.1f%% of the first), %d input tokens: %d read, %d written, %d uncached",
			i+1, cost[i], 100*cost[i]/cost[0], u.InputTokens, u.CacheReadInputTokens, u.CacheWriteInputTokens,
			u.InputTokens-u.CacheReadInputTokens-u.CacheWriteInputTokens)
	}
	assert.LessOrEqual(t, cost[0], 1.3*baseCost[0], "the first question costs at most 1.3x today's")
	// Questions within the question allowance pack the same batches at one
	// seed (docs/contract.md#batching), so the second and third read every
	// batch the first wrote and write none.
	for i := 1; i < 3; i++ {
		assert.Equal(t, usage[0].CacheWriteInputTokens, usage[i].CacheReadInputTokens, "question %d reads every batch", i+1)
		assert.Zero(t, usage[i].CacheWriteInputTokens, "question %d writes nothing", i+1)
		assert.LessOrEqual(t, billedInput(usage[i]), 0.25*billedInput(usage[0]), "question %d's billed map input", i+1)
	}
}

// billedInput is a stage's input as billed, in input-token equivalents:
// reads at a tenth, 5-minute writes at 1.25.
func billedInput(u globalsearch.StageUsage) float64 {
	uncached := u.InputTokens - u.CacheReadInputTokens - u.CacheWriteInputTokens
	return float64(uncached) + 0.1*float64(u.CacheReadInputTokens) + 1.25*float64(u.CacheWriteInputTokens)
}

// BenchmarkCarolPromptCache (make bench) reports the second and third
// questions' billed map input as a share of the first's, and the first's
// map cost against today's uncached one, through the real SDK client and
// the caching double (docs/cost.md#prompt-cache).
func BenchmarkCarolPromptCache(b *testing.B) {
	for b.Loop() {
		_, baseCost := carolRun(b, bedrock.CacheOff, carolQuestions[:1])
		usage, cost := carolRun(b, bedrock.CacheFiveMinute, carolQuestions)
		b.ReportMetric(cost[0]/baseCost[0], "first/today")
		b.ReportMetric(billedInput(usage[1])/billedInput(usage[0]), "second/first")
		b.ReportMetric(billedInput(usage[2])/billedInput(usage[0]), "third/first")
	}
}
