package globalsearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/tokens/bpe"
)

// generated builds n leaf summaries of text drawn by word from words,
// joined by sep, about size code points each.
func generated(seed uint64, n, size int, words []string, sep string) globalsearch.Records {
	r := rand.New(rand.NewPCG(seed, 1))
	var recs globalsearch.Records
	for i := range n {
		var b strings.Builder
		for b.Len() < size*3 {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(sep)
		}
		recs.Summaries = append(recs.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c%03d", i), Level: 0, Summary: b.String()})
	}
	return recs
}

var (
	chineseWords  = strings.Fields("港口 贸易 能源 转型 渔业 干旱 大学 社区 政府 合作 发展 经济 海运 码头 工人 城市 政策 报告 会议 协议 。 ， 、 2019年 AI")
	japaneseWords = strings.Fields("港湾 の 貿易 が エネルギー を 転換 した 。 漁業 と 干ばつ は 大学 で 研究 され 、 地域 社会 に 影響 ました カタカナ データ")
	codeWords     = []string{"func (p *packer) addPart(pt part) {", "\tif len(p.parts) > 0 {", "\t\treturn nil, err", "}", "x := map[string]int{\"a\": 1}",
		"// comment: why, not what", "for i := range 10 {", "\tfmt.Println(i+1)", "if err != nil {", "s = s[:len(s)-1]  ", "\t\t"}
)

type budgetCase struct {
	name    string
	records func(t *testing.T) globalsearch.Records
}

func budgetCases() []budgetCase {
	return []budgetCase{
		{"carol", func(t *testing.T) globalsearch.Records {
			recs, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
			require.NoError(t, err)
			return recs
		}},
		{"chinese", func(*testing.T) globalsearch.Records { return generated(1, 80, 700, chineseWords, "") }},
		{"japanese", func(*testing.T) globalsearch.Records { return generated(2, 80, 700, japaneseWords, "") }},
		{"code", func(*testing.T) globalsearch.Records { return generated(3, 40, 3000, codeWords, "\n") }},
	}
}

// TestExactBudgetsHoldOnTheRealTokenizer renders every map prompt a plan
// sends and counts it with the tokenizer it was packed for: it never
// exceeds the map prompt budget (docs/contract.md#token-estimate). Budgets
// small enough to split summaries test the cut too. The log gives worst
// real ÷ budget and what the running count overshoots the real count by.
func TestExactBudgetsHoldOnTheRealTokenizer(t *testing.T) {
	ctx := context.Background()
	for _, bc := range budgetCases() {
		t.Run(bc.name, func(t *testing.T) {
			recs := bc.records(t)
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(ctx, "default", recs))
			for _, tc := range []struct {
				counter *bpe.Counter
				budget  int
			}{{bpe.O200k, 8000}, {bpe.CL100k, 8000}, {bpe.O200k, 1500}, {bpe.CL100k, 1500}} {
				name := tc.counter.Name()
				req := globalsearch.Request{Query: "What are the main themes?", Tokenizer: &name, MapTokenBudget: &tc.budget}
				d := globalsearch.SpecDefaults
				d.MaxModelCalls = 0 // small budgets plan many batches
				p, err := req.Params(d)
				require.NoError(t, err)
				e := &globalsearch.Engine{Index: store, Runs: memstore.New()}
				plan, err := e.Plan(ctx, p)
				require.NoError(t, err)
				require.NotEmpty(t, plan.Batches)
				worst, over, maxOver := 0.0, 0, 0
				for _, b := range plan.Batches {
					real := tc.counter.Count(globalsearch.DefaultPrompts().Map.Render(p.Query, b.Content))
					assert.LessOrEqual(t, real, p.MapPromptBudget(), "batch %d", b.Index)
					assert.GreaterOrEqual(t, b.EstimatedTokens, real, "batch %d: the running count bounds the prompt", b.Index)
					worst = max(worst, float64(real)/float64(p.MapPromptBudget()))
					over += b.EstimatedTokens - real
					maxOver = max(maxOver, b.EstimatedTokens-real)
				}
				t.Logf("%s budget %d: %d batches, worst real/budget %.3f, running count over real by %.1f tokens a batch on average, %d at most",
					name, p.MapPromptBudget(), len(plan.Batches), worst, float64(over)/float64(len(plan.Batches)), maxOver)
			}
		})
	}
}

// TestCalibratedAgainstExact packs with the calibrated rates of an OpenAI
// family and counts the prompts with that family's real vocabulary. The
// rates carry headroom, not a guarantee, so this logs the figures
// (docs/contract.md#token-estimate) and asserts only that packing stayed
// within budget where the rates hold, which the log shows.
func TestCalibratedAgainstExact(t *testing.T) {
	ctx := context.Background()
	for _, bc := range budgetCases() {
		t.Run(bc.name, func(t *testing.T) {
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(ctx, "default", bc.records(t)))
			for _, tc := range []struct {
				model   string
				counter *bpe.Counter
			}{{"openai:gpt-4o@http://x", bpe.O200k}, {"openai:gpt-4@http://x", bpe.CL100k}} {
				name := tokens.NameCalibrated
				p, err := globalsearch.Request{Query: "What are the main themes?", Tokenizer: &name}.Params(globalsearch.SpecDefaults)
				require.NoError(t, err)
				e := &globalsearch.Engine{Index: store, Runs: memstore.New(), ModelID: tc.model}
				plan, err := e.Plan(ctx, p)
				require.NoError(t, err)
				worst, sum := 0.0, 0.0
				for _, b := range plan.Batches {
					ratio := float64(tc.counter.Count(globalsearch.DefaultPrompts().Map.Render(p.Query, b.Content))) / float64(p.MapPromptBudget())
					worst, sum = max(worst, ratio), sum+ratio
				}
				t.Logf("calibrated %s rates against %s: %d batches, real/budget mean %.3f worst %.3f",
					tokens.CalibratedFor(tc.model).Rates.Family, tc.counter.Name(), len(plan.Batches), sum/float64(len(plan.Batches)), worst)
				// The headroom keeps a character count near its budget, not
				// under it: within 5% over on these texts.
				assert.LessOrEqual(t, worst, 1.05)
			}
		})
	}
}

func TestTokenizerField(t *testing.T) {
	claude := globalsearch.SpecDefaults.ForModel("us.anthropic.claude-3-5-haiku-20241022-v1:0")
	tests := []struct {
		name     string
		body     string
		defaults globalsearch.Defaults
		want     string
		wantErr  string
	}{
		{"absent, no model: the estimate", `{"query":"q"}`, globalsearch.SpecDefaults, "", ""},
		{"absent, Claude: calibrated", `{"query":"q"}`, claude, tokens.NameCalibrated, ""},
		{"absent, gpt-4o: o200k", `{"query":"q"}`, globalsearch.SpecDefaults.ForModel("openai:gpt-4o@http://x"), tokens.NameO200k, ""},
		{"named estimate is stored as none", `{"query":"q","tokenizer":"estimate"}`, claude, "", ""},
		{"named wins over the family", `{"query":"q","tokenizer":"cl100k"}`, claude, tokens.NameCL100k, ""},
		{"unknown", `{"query":"q","tokenizer":"p50k"}`, claude, "", "tokenizer must be one of estimate, o200k, cl100k, calibrated"},
		{"not a string", `{"query":"q","tokenizer":1}`, claude, "", "tokenizer must be one of estimate, o200k, cl100k, calibrated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := globalsearch.ParseRequest([]byte(tc.body), tc.defaults)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.Tokenizer)
		})
	}
	t.Run("deployment variable", func(t *testing.T) {
		d, err := globalsearch.DefaultsFromEnv(func(k string) (string, bool) { return "o200k", k == "GRAPHRAG_TOKENIZER" })
		require.NoError(t, err)
		assert.Equal(t, tokens.NameO200k, d.ForModel("anthropic.claude").Tokenizer, "the deployment's choice wins over the family")
		_, err = globalsearch.DefaultsFromEnv(func(k string) (string, bool) { return "bpe", k == "GRAPHRAG_TOKENIZER" })
		assert.ErrorContains(t, err, "GRAPHRAG_TOKENIZER: tokenizer must be one of")
	})
}

// TestExactReducePromptHoldsItsBudget selects map answers drawn from the
// corpora for the reduce prompt, counted exactly, and counts the reduce
// prompt sent: it never exceeds the reduce prompt budget.
func TestExactReducePromptHoldsItsBudget(t *testing.T) {
	for _, bc := range budgetCases() {
		t.Run(bc.name, func(t *testing.T) {
			recs := bc.records(t)
			var answers []globalsearch.MapAnswer
			for i, s := range recs.Summaries {
				answers = append(answers, globalsearch.MapAnswer{BatchIndex: i, CommunityIDs: []string{s.ID}, Answer: s.Summary, Usefulness: float64(1 + i%100)})
			}
			reduce := globalsearch.DefaultPrompts().Reduce.WithResponseType(globalsearch.DefaultResponseType)
			const query = "What are the main themes?"
			for _, c := range []*bpe.Counter{bpe.O200k, bpe.CL100k} {
				for _, budget := range []int{6976, 4000} {
					selected, content, promptTokens := globalsearch.SelectAnswersWith(c, reduce.Skeleton(query), budget, answers)
					require.NotEmpty(t, selected)
					real := c.Count(reduce.Render(query, content))
					assert.LessOrEqual(t, real, budget)
					assert.GreaterOrEqual(t, promptTokens, real)
					t.Logf("%s reduce budget %d: %d answers, real %d, running count over real by %d", c.Name(), budget, len(selected), real, promptTokens-real)
				}
			}
		})
	}
}
