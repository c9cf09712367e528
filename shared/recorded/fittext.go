package recorded

import (
	"fmt"
	"io"
	"strconv"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// WriteText prints the fit for a person, as calibrate does without
// --json (docs/contract.md#calibrate): the rates, then the headroom each
// needs.
func (f Fit) WriteText(w io.Writer) {
	c := f.Calibration
	count := globalsearch.Plural
	model := ""
	if f.ModelID != "" {
		model = ", model " + f.ModelID
	}
	if f.CountedPlan {
		fmt.Fprintf(w, "fitted from %s counted with CountTokens (no inference)%s\n", count(c.Calls, "planned map prompt", "planned map prompts"), model)
	} else {
		fmt.Fprintf(w, "fitted from %s in %s%s\n", count(c.Calls, "map call", "map calls"), count(f.Results, "result", "results"), model)
	}
	if f.SkippedOfflineResults > 0 {
		fmt.Fprintf(w, "skipped %s of the offline model, which reports the estimate\n", count(f.SkippedOfflineResults, "result", "results"))
	}
	fmt.Fprintf(w, "ASCII:     %s characters a token%s\n", rate(c.ASCIIRate), held(c.ASCIIFitted, globalsearch.EstimateASCIIRate))
	fmt.Fprintf(w, "non-ASCII: %s characters a token%s\n", rate(c.NonASCIIRate), held(c.NonASCIIFitted, globalsearch.EstimateNonASCIIRate))
	pct := strconv.FormatFloat(c.Quantile*100, 'f', -1, 64) + "%"
	fmt.Fprintf(w, "headroom:  %s (%s of the calls within the count at these rates x %s; worst %s)\n",
		rate(c.Headroom), pct, rate(c.Headroom), rate(c.WorstRatio))
	fmt.Fprintf(w, "the estimate: reported / estimated %s overall, %s at %s, worst %s\n",
		rate(c.Estimate.Ratio), rate(c.Estimate.Headroom), pct, rate(c.Estimate.Worst))
}

func rate(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// held says when a rate was not fitted but held at the estimate's.
func held(fitted bool, estimate float64) string {
	if fitted {
		return ""
	}
	return fmt.Sprintf(" (held at the estimate's %s: the calls do not separate it)", strconv.FormatFloat(estimate, 'f', -1, 64))
}
