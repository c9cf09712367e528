package globalsearch_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestPlanWorstCaseIsWhereTheCeilingRefuses: the worst case a plan
// reports is exactly the figure its ceiling checks refuse at
// (docs/contract.md#worst-case), for a selection by level, "auto" and
// dynamic selection: a ceiling at the figure plans, one just below it is
// refused, by the dry run and by prepare before any model call.
func TestPlanWorstCaseIsWhereTheCeilingRefuses(t *testing.T) {
	const query = `{"query":"Where is trade?","shuffle":false,"mapTokenBudget":600,"mapOutputReserve":100`
	tests := []struct {
		name, body string
		rating     bool
	}{
		{"level", query + `,"communityLevel":1`, false},
		{"auto", query + `,"communityLevel":"auto","maxMapInputTokens":100000`, false},
		{"dynamic", query + `,"selection":"dynamic"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEngine(t, forest(), nil)
			e.Prices = testPrices
			params := func(extra string) gs.Params {
				p, err := gs.ParseRequest([]byte(tc.body+extra+`}`), gs.SpecDefaults)
				require.NoError(t, err)
				return p
			}
			plan, err := e.Plan(context.Background(), params(""))
			require.NoError(t, err)
			report := e.Report(plan)
			w := report.WorstCase
			require.Positive(t, w.MapCalls)
			assert.Equal(t, tc.rating, w.RatingCalls > 0, "rating calls only for dynamic selection")
			assert.Equal(t, w.Calls(), report.MaxModelCalls)
			require.NotNil(t, report.Cost)
			assert.Equal(t, w.CostUSD(), report.Cost.WorstCase)

			usd := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
			ceilings := []struct {
				name      string
				at, under string
			}{
				{"maxCostUsd", `,"maxCostUsd":` + usd(w.CostUSD()), `,"maxCostUsd":` + usd(math.Nextafter(w.CostUSD(), 0))},
				{"maxModelCalls", `,"maxModelCalls":` + strconv.Itoa(w.Calls()), `,"maxModelCalls":` + strconv.Itoa(w.Calls()-1)},
			}
			for _, c := range ceilings {
				t.Run(c.name, func(t *testing.T) {
					_, err := e.Plan(context.Background(), params(c.at))
					require.NoError(t, err, "a ceiling at the reported worst case holds the plan")

					_, err = e.Plan(context.Background(), params(c.under))
					require.Error(t, err)
					assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err), "%v", err)

					model := &fakeModel{complete: answerEverything}
					run := *e
					run.Model = model
					_, err = run.Prepare(context.Background(), params(c.under))
					assert.Equal(t, gs.KindPlanTooLarge, gs.KindOf(err), "%v", err)
					assert.Empty(t, model.calls, "refused before any model call")
				})
			}
		})
	}
}

// The worst case a dynamic selection's plan reports is rating every
// rateable community at the estimate of its rating batches, then one map
// batch of a full map prompt and the reduce, every attempt made: the
// plan of every leaf it also reports is a reference, held to nothing.
func TestDynamicWorstCaseIsRatingThenTheLeastMap(t *testing.T) {
	e, _ := newEngine(t, forest(), nil)
	e.Prices = testPrices
	p := dynamicParams(t, "")
	plan, err := e.Plan(context.Background(), p)
	require.NoError(t, err)
	report := e.Report(plan)
	sel := report.Selection
	require.Positive(t, sel.MostRatingInputTokens)
	ratingBatches := sel.MostRatingCalls / gs.RatingAttempts
	least := testPrices.WorstCase(p, p.MapPromptBudget(), 1)
	want := gs.WorstCase{
		RatingCalls: sel.MostRatingCalls, MapCalls: gs.MapAttempts, ReduceCalls: gs.ReduceAttempts,
		RatingUSD: float64(gs.RatingAttempts) * (float64(sel.MostRatingInputTokens)/1000*testPrices.Map.In +
			float64(ratingBatches*p.MapOutputReserve)/1000*testPrices.Map.Out),
		MapUSD: least.Map, ReduceUSD: least.Reduce,
	}
	assert.InDelta(t, want.RatingUSD, report.WorstCase.RatingUSD, 1e-12)
	want.RatingUSD = report.WorstCase.RatingUSD
	assert.Equal(t, want, report.WorstCase)
	assert.Equal(t, sel.MostRatingCalls+gs.MostModelCalls(1), report.MaxModelCalls)
}

// MapMode is the one rule of how the state machine runs a plan: a
// dynamic selection's most rating batches count toward the inline Map's
// history with the map batches (docs/contract.md#plan-limits).
func TestMapMode(t *testing.T) {
	cases := []struct {
		batches, ratingBatches, inlineMax int
		want                              string
	}{
		{1, 0, 0, gs.ModeInline},
		{gs.InlineMaxBatches, 0, 0, gs.ModeInline},
		{gs.InlineMaxBatches + 1, 0, 0, gs.ModeDistributed},
		{gs.InlineMaxBatches - 2, 2, 0, gs.ModeInline},
		{gs.InlineMaxBatches - 2, 3, 0, gs.ModeDistributed},
		{5000, 0, 0, gs.ModeDistributed},
		{2, 0, 1, gs.ModeDistributed},
		{1, 1, 2, gs.ModeInline},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, gs.MapMode(tc.batches, tc.ratingBatches, tc.inlineMax),
			"%d map and %d rating batches, inline max %d", tc.batches, tc.ratingBatches, tc.inlineMax)
	}
}

// TestPlanRulesHaveOneHome: the plan's rules are written in this package
// only (docs/contract.md#plan-report). Outside it, no non-test file turns
// rating calls into batches, decides the map mode, adds up a plan's
// model calls or prices one: the CLI, serve, MCP and prepare print or
// return what Engine.Report and MapMode computed.
func TestPlanRulesHaveOneHome(t *testing.T) {
	root := filepath.Join("..", "..")
	forbidden := map[string]*regexp.Regexp{
		"rating calls divided into batches": regexp.MustCompile(`MostRatingCalls\s*/|[\w)\]]\s*/\s*(globalsearch\.)?RatingAttempts`),
		"a map mode decided":                regexp.MustCompile(`func MapMode\(|InlineMaxBatches\s*[<>]`),
		"a plan's model calls added up":     regexp.MustCompile(`MostModelCalls\(`),
		"a plan priced":                     regexp.MustCompile(`\.PlanCost\(|\.WorstCase\(`),
	}
	checked := 0
	for _, dir := range []string{"cmd", "functions", filepath.Join("shared", "workflow"), filepath.Join("shared", "api")} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for what, re := range forbidden {
				assert.False(t, re.Match(src), "%s: %s belongs to shared/globalsearch", path, what)
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Positive(t, checked)

	// Inside the package, rating calls become batches in one place
	// (mostRatingBatches), which the limits, the mode and the cost share.
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	divisions := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		divisions += len(forbidden["rating calls divided into batches"].FindAll(src, -1))
	}
	assert.Equal(t, 1, divisions, "MostRatingCalls / RatingAttempts is written once")
}
