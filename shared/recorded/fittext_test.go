package recorded_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/recorded"
)

// WriteText names where the calls came from, what was skipped, and holds
// a rate the calls do not separate at the estimate's.
func TestFitWriteText(t *testing.T) {
	c := globalsearch.Calibration{Calls: 1, ASCIIRate: 4.125, NonASCIIRate: 1.5, ASCIIFitted: true,
		Quantile: 0.99, Headroom: 1.1, WorstRatio: 1.25, Estimate: globalsearch.RatioSummary{Ratio: 0.9, Headroom: 1.05, Worst: 1.3}}
	tests := []struct {
		name       string
		fit        recorded.Fit
		want, miss []string
	}{
		{
			name: "recorded results",
			fit:  recorded.Fit{ModelID: "m", Results: 2, SkippedOfflineResults: 1, Calibration: c},
			want: []string{
				"fitted from 1 map call in 2 results, model m\n",
				"skipped 1 result of the offline model, which reports the estimate\n",
				"ASCII:     4.12 characters a token\n",
				"non-ASCII: 1.50 characters a token (held at the estimate's ",
				"headroom:  1.10 (99% of the calls within the count at these rates x 1.10; worst 1.25)\n",
				"the estimate: reported / estimated 0.90 overall, 1.05 at 99%, worst 1.30\n",
			},
		},
		{
			name: "counted plan",
			fit:  recorded.Fit{CountedPlan: true, Calibration: c},
			want: []string{"fitted from 1 planned map prompt counted with CountTokens (no inference)\n"},
			miss: []string{"skipped", ", model"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			tc.fit.WriteText(&w)
			for _, s := range tc.want {
				assert.Contains(t, w.String(), s)
			}
			for _, s := range tc.miss {
				assert.NotContains(t, w.String(), s)
			}
		})
	}
}
