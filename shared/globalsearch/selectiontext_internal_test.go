package globalsearch

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// A rating reads a prefix of each community cut at a sentence
// (docs/contract.md#dynamic-selection): whole sentences within the limit,
// abbreviations and initials not taken for ends, and a first sentence
// longer than the limit cut at a word.
func TestSentencePrefix(t *testing.T) {
	long := strings.Repeat("word ", 30) // 150 runes, no sentence end
	tests := []struct {
		name, text string
		limit      int
		want       string
	}{
		{"short text whole", "One. Two.", 40, "One. Two."},
		{"whole sentences that fit", "First one here. Second one here. Third one here.", 35, "First one here. Second one here."},
		{"exactly the limit", "First one here. Second.", 15, "First one here."},
		{"an abbreviation is no end", "Mr. Scrooge sat. He was cold and alone.", 30, "Mr. Scrooge sat."},
		{"an initial is no end", "J. B. Lippincott printed it. Later more.", 35, "J. B. Lippincott printed it."},
		{"a decimal is no end", "It cost 2.5 pounds. It rose later on.", 25, "It cost 2.5 pounds."},
		{"question and exclamation", "Why? Because! And then more text.", 15, "Why? Because!"},
		{"a blank line ends a paragraph", "Heading line\n\nBody text goes on here.", 20, "Heading line"},
		{"CJK sentence ends", "港口扩建了。渔民反对。更多的文字在这里继续。", 12, "港口扩建了。渔民反对。"},
		{"a first sentence too long is cut at a word", long, 22, strings.TrimSpace(long[:20])},
		{"no space: cut at the limit", strings.Repeat("港", 30), 10, strings.Repeat("港", 10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sentencePrefix(tc.text, tc.limit)
			assert.Equal(t, tc.want, got)
			assert.LessOrEqual(t, utf8.RuneCountInString(got), tc.limit)
		})
	}
}

// What a rating call sees of a community: its title and a prefix of its
// short form when it has one, else of its summary, without a heading that
// repeats the title.
func TestRatingText(t *testing.T) {
	body := strings.Repeat("This sentence holds some forty characters. ", 20)
	tests := []struct {
		name string
		s    Summary
		want string
	}{
		{"title and summary", Summary{Title: "Harbour", Summary: "Cranes moved. Ships came."}, "Harbour\nCranes moved. Ships came."},
		{"no title", Summary{Summary: "Cranes moved."}, "Cranes moved."},
		{"the heading that repeats the title dropped", Summary{Title: "Harbour  works", Summary: "# Harbour works\n\nCranes moved."}, "Harbour works\nCranes moved."},
		{"another heading kept", Summary{Title: "Harbour", Summary: "# Port\n\nCranes moved."}, "Harbour\n# Port\n\nCranes moved."},
		{"the short form rated instead", Summary{Title: "Harbour", Summary: "# Harbour\n\n## Findings\nLong.", ShortSummary: "The port grew."}, "Harbour\nThe port grew."},
		{"a blank short form falls back", Summary{Title: "Harbour", Summary: "Cranes moved.", ShortSummary: "  "}, "Harbour\nCranes moved."},
		{"a long summary cut at a sentence", Summary{Title: "T", Summary: body}, "T\n" + strings.TrimSpace(body[:10*43])},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ratingText(&tc.s))
		})
	}
}
