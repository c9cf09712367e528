package localserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The page's status line names the reduce rounds when there were more
// than the final call, as run's does, and its coverage line carries run's
// hint when one reduce prompt skipped useful answers
// (docs/contract.md#reduce-rounds).
func TestServePageShowsTheReduceRounds(t *testing.T) {
	tests := []struct {
		name       string
		rounds     int
		answers    globalsearch.MapAnswerCoverage
		wantStatus string
		wantHint   bool
	}{
		{"tree in rounds", 3, globalsearch.MapAnswerCoverage{Useful: 6, ReachedReduce: 6, InRounds: true}, "completed · q-1 · 3 reduce rounds", false},
		{"single skipped answers", 1, globalsearch.MapAnswerCoverage{Useful: 6, ReachedReduce: 2, SkippedForBudget: 4}, "completed · q-1", true},
		{"single kept every answer", 1, globalsearch.MapAnswerCoverage{Useful: 6, ReachedReduce: 6}, "completed · q-1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := browse(t)
			l, _ := localServer(t, nil)
			res := globalsearch.Result{QueryID: "q-1", Namespace: "sample", Status: globalsearch.StatusCompleted, Answer: "Ports grew."}
			answers := tc.answers
			res.Diagnostics = globalsearch.Diagnostics{SummaryCount: 6, BatchCount: 6, ModelCalls: 9,
				Coverage: globalsearch.Coverage{CommunitiesSelected: 6, CommunitiesInNamespace: 6, MapAnswers: &answers}}
			res.Diagnostics.Reduce.Rounds = tc.rounds
			mux := http.NewServeMux()
			mux.Handle("/", l.routes())
			mux.Handle("/namespaces/{namespace}/queries/", resultAPI{res})
			mux.Handle("POST /namespaces/{namespace}/queries", resultAPI{res})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)

			require.NoError(t, chromedp.Do(ctx,
				chromedp.Navigate(srv.URL+"/"),
				chromedp.SendKeys(chromedp.ID("query"), "What changed?"),
				chromedp.Click(chromedp.ID("ask-button")),
				chromedp.WaitVisible(chromedp.ID("coverage")),
			))
			assert.Equal(t, tc.wantStatus, text(t, ctx, "run-status"))
			assert.Equal(t, res.Diagnostics.Coverage.LineWithReduceHint(), text(t, ctx, "coverage"))
			if tc.wantHint {
				assert.Contains(t, text(t, ctx, "coverage"), "--reduce-mode tree would keep the 4 useful answers skipped for the reduce budget")
			} else {
				assert.NotContains(t, text(t, ctx, "coverage"), "would keep")
			}
		})
	}
}
