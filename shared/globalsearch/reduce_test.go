package globalsearch_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func TestSelectAnswers(t *testing.T) {
	answer := func(i int, u float64, text string) gs.MapAnswer {
		return gs.MapAnswer{BatchIndex: i, Usefulness: u, Answer: text, CommunityIDs: []string{"c" + string(rune('0'+i))}}
	}
	tests := []struct {
		name     string
		skeleton string
		budget   int
		answers  []gs.MapAnswer
		want     []string
	}{
		{"spec: ranked, zero dropped", "query prompt", 100,
			[]gs.MapAnswer{answer(0, 20, "Lower ranked"), answer(1, 90, "Highest ranked"), answer(2, 0, "No signal")},
			[]string{"Highest ranked", "Lower ranked"}},
		{"spec: skip, do not break", "Question prompt", 20,
			[]gs.MapAnswer{answer(0, 90, strings.Repeat("x", 400)), answer(1, 80, "Fits"), answer(2, 70, "Third")},
			[]string{"Fits"}},
		{"ties keep batch order", "q", 1000,
			[]gs.MapAnswer{answer(0, 50, "first"), answer(1, 70, "top"), answer(2, 50, "second")},
			[]string{"top", "first", "second"}},
		{"nothing positive", "q", 1000, []gs.MapAnswer{answer(0, 0, "")}, nil},
		{"nothing fits", "q", 5, []gs.MapAnswer{answer(0, 10, strings.Repeat("y", 100))}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			selected, content, promptTokens := gs.SelectAnswers(tc.skeleton, tc.budget, tc.answers)
			var got []string
			for _, a := range selected {
				got = append(got, a.Answer)
			}
			assert.Equal(t, tc.want, got)
			if len(selected) == 0 {
				assert.Empty(t, content)
				return
			}
			// The running count must equal the estimate of the real prompt.
			assert.Equal(t, tokens.Estimate(tc.skeleton+"\n"+content), promptTokens)
			assert.LessOrEqual(t, promptTokens, tc.budget)
		})
	}
}

func TestRenderCandidate(t *testing.T) {
	a := gs.MapAnswer{Usefulness: 72.5, CommunityIDs: []string{"c1", "c2"}, Answer: "Trend"}
	assert.Equal(t, "[Usefulness: 72.5; Community IDs: c1, c2]\nTrend", gs.RenderCandidate(a))
	a.Usefulness = 85
	assert.Equal(t, "[Usefulness: 85; Community IDs: c1, c2]\nTrend", gs.RenderCandidate(a))
}
