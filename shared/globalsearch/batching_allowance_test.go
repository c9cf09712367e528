package globalsearch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// allowanceQuestion is a question of exactly the question allowance of
// docs/contract.md#batching: 128 ASCII code points and 8 others. It packs
// by the fit test with its own skeleton, and so, by the contract, does
// every question within the allowance.
var allowanceQuestion = strings.Repeat("What? ", 21) + "ab" + strings.Repeat("é", 8)

// planContents plans q over records and returns each batch's content,
// checking that its estimate is the prompt sent with q and passes the fit
// test (docs/contract.md#batching).
func planContents(t *testing.T, records gs.Records, q, batching, tokenizer string) []string {
	t.Helper()
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "default", records))
	seed := int64(7)
	req := gs.Request{Query: q, Batching: &batching, ShuffleSeed: &seed}
	if tokenizer != "" {
		req.Tokenizer = &tokenizer
	}
	p, err := req.Params(gs.SpecDefaults)
	require.NoError(t, err)
	p.MaxModelCalls = 0
	plan, err := (&gs.Engine{Index: s, Runs: s}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.NotEmpty(t, plan.Batches)
	var out []string
	for _, b := range plan.Batches {
		if tokenizer == "" {
			sent := tokens.Estimate(gs.DefaultPrompts().Map.Skeleton(p.Query) + "\n" + b.Content)
			assert.Equal(t, sent, b.EstimatedTokens, "a batch's estimate is the prompt sent with its own question")
		}
		assert.LessOrEqual(t, b.EstimatedTokens, p.MapPromptBudget(), "the fit test with the real question")
		out = append(out, b.Content)
	}
	return out
}

// TestQuestionsWithinTheAllowanceShareBatches: at one seed, every question
// within the allowance packs the batches a question of exactly the
// allowance packs, on the generated and the real index, greedy and
// stable, so a prompt cache holds them for every question
// (docs/contract.md#prompt-cache); a longer question packs against its own
// length, as a question of that length does.
func TestQuestionsWithinTheAllowanceShareBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and plans a 2,000-summary index; skipped with -short")
	}
	carol, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
	require.NoError(t, err)
	generated, _ := reindexed(t)
	within := []string{
		"What happens to Tiny Tim?",
		"Who was Scrooge’s business partner?", // a curly apostrophe: one code point of the other class
		"Quels sont les thèmes principaux du récit, et comment évoluent-ils ?",
		"What are the top themes of the story?",
	}
	long := strings.TrimSpace(strings.Repeat("Which themes recur across the whole collection? ", 4))
	longToo := strings.ReplaceAll(long, "themes", "topics")
	require.Equal(t, tokens.Of(long), tokens.Of(longToo), "two long questions of one length")
	for name, records := range map[string]gs.Records{"christmas-carol": carol, "generated-2000": generated} {
		for _, batching := range []string{gs.BatchingGreedy, gs.BatchingStable} {
			t.Run(name+", "+batching, func(t *testing.T) {
				want := planContents(t, records, allowanceQuestion, batching, "")
				for _, q := range within {
					assert.Equal(t, want, planContents(t, records, q, batching, ""), "%q packs as the allowance does", q)
				}
				longBatches := planContents(t, records, long, batching, "")
				assert.Equal(t, longBatches, planContents(t, records, longToo, batching, ""), "a longer question packs against its own length")
				assert.NotEqual(t, want, longBatches, "a question over the allowance has less room")
			})
		}
	}
	t.Run("christmas-carol, an exact tokenizer", func(t *testing.T) {
		want := planContents(t, carol, within[0], gs.BatchingGreedy, tokens.NameO200k)
		for _, q := range within[1:] {
			assert.Equal(t, want, planContents(t, carol, q, gs.BatchingGreedy, tokens.NameO200k), "%q counted exactly", q)
		}
	})
}
