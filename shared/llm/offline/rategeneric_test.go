package offline_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// genericBatch is a rating batch of short forms: three that name the
// batch's central entities (Scrooge, Marley), one of them with a theme's
// cue words, and two about something else.
var genericBatch = strings.Join([]string{
	"[Community ID: ledger | summary part 1]\nThe counting house\nScrooge keeps the counting house where Marley once worked beside him.",
	"[Community ID: moral | summary part 1]\nThe ghost's lesson\nMarley's ghost brings Scrooge a moral lesson about greed and its meaning.",
	"[Community ID: chain | summary part 1]\nThe chain\nMarley's chain is forged of the cash boxes Scrooge counts.",
	"[Community ID: tea | summary part 1]\nTea gardens\nThe hills grow green tea for the market.",
	"[Community ID: port | summary part 1]\nThe harbour\nBoats land herring at the quay each morning.",
}, "\n")

// A generic question (docs/contract.md#dynamic-selection, item 7) rates
// every community: the heaviest ceil(sqrt(n)) of the batch pass the
// default threshold, the central ones first and, among those, the one
// that speaks to the question's aspect; the rest score 1, never 0.
func TestOfflineRatesGenericQuestionsByCentrality(t *testing.T) {
	tests := []struct {
		query string
		top   string // the community rated highest
	}{
		{"What are the main themes?", "moral"},
		{"What is the moral of the tale?", "moral"},
		{"What is this corpus about?", ""},
		{"Who are the key people and how do they relate?", ""},
	}
	ids := []string{"ledger", "moral", "chain", "tea", "port"}
	pass := int(math.Ceil(math.Sqrt(float64(len(ids)))))
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r, err := rate(t, tc.query, genericBatch, 0)
			require.NoError(t, err)
			passed := 0
			for _, id := range ids {
				assert.GreaterOrEqual(t, r.Scores[id], 1.0, "%s: of some use to a question about the whole", id)
				if r.Scores[id] >= globalsearch.DefaultRatingThreshold {
					passed++
				}
			}
			assert.Equal(t, pass, passed, "ceil(sqrt(n)) pass")
			assert.Equal(t, float64(globalsearch.MaxRating), maxScore(r.Scores))
			for _, id := range []string{"tea", "port"} {
				assert.Equal(t, 1.0, r.Scores[id], "%s names none of the central entities", id)
			}
			if tc.top != "" {
				assert.Equal(t, float64(globalsearch.MaxRating), r.Scores[tc.top], "the aspect's cues lead")
			}
			again, err := rate(t, tc.query, genericBatch, 0)
			require.NoError(t, err)
			assert.Equal(t, r.Scores, again.Scores, "the same on every run")
		})
	}
}

// Scores step from 5 down to 2 by rank among the communities that pass,
// whatever the size of the batch; a single community scores 5.
func TestOfflineGenericRatingSteps(t *testing.T) {
	for _, n := range []int{1, 2, 9, 23} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var parts []string
			for i := range n {
				parts = append(parts, fmt.Sprintf("[Community ID: c%d | summary part 1]\nPart %d\nScrooge walks through the streets of London with Marley on night %d.", i, i, i))
			}
			r, err := rate(t, "What are the main themes?", strings.Join(parts, "\n"), 0)
			require.NoError(t, err)
			counts := map[float64]int{}
			for _, s := range r.Scores {
				counts[s]++
			}
			pass := int(math.Ceil(math.Sqrt(float64(n))))
			assert.Equal(t, 1, counts[float64(globalsearch.MaxRating)], "one best")
			if pass > 1 {
				assert.Equal(t, 1, counts[2], "the last that passes scores 2")
			}
			assert.Equal(t, n-pass, counts[1])
		})
	}
}

func maxScore(scores map[string]float64) float64 {
	best := 0.0
	for _, s := range scores {
		best = max(best, s)
	}
	return best
}
