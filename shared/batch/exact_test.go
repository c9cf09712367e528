package batch_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// thirds stands in for an exact tokenizer: a token per three bytes, not
// a sum over code points, with a one-token join.
type thirds struct{}

func (thirds) Name() string              { return "thirds" }
func (thirds) Of(s string) tokens.Count  { return tokens.Count{Exact: (len(s) + 2) / 3} }
func (thirds) Join() tokens.Count        { return tokens.Count{Exact: 1} }
func (thirds) Tokens(c tokens.Count) int { return c.Exact }
func (thirds) ByCodePoint() bool         { return false }

func TestPackCountedHoldsTheBudget(t *testing.T) {
	const skeleton = "Q: what?\n<data>\n</data>"
	items := []batch.Item{
		{ID: "a", Text: "short"},
		{ID: "b", Text: strings.Repeat("long text 中文 ", 80)},
		{ID: "c", Text: "mid " + strings.Repeat("x", 100)},
		{ID: "d", Text: strings.Repeat("中", 200)},
	}
	for _, budget := range []int{60, 120, 1000} {
		batches, err := batch.PackSeqWith(thirds{}, skeleton, budget, func(yield func(batch.Item) bool) {
			for _, it := range items {
				if !yield(it) {
					return
				}
			}
		})
		require.NoError(t, err)
		for _, b := range batches {
			sent := skeleton + "\n" + b.Content + "\n" // the content line's two joins
			assert.LessOrEqual(t, thirds{}.Of(sent).Exact, b.Tokens, "budget %d: Tokens bounds the prompt", budget)
			assert.LessOrEqual(t, b.Tokens, budget)
		}
		// Every item's parts, in order, are its text.
		var all strings.Builder
		for _, b := range batches {
			all.WriteString(b.Content + "\n")
		}
		for _, it := range items {
			assert.Contains(t, strings.ReplaceAll(removeHeaders(all.String()), "\n", ""), strings.ReplaceAll(it.Text, "\n", ""), "budget %d: %s whole", budget, it.ID)
		}
	}
}

// removeHeaders joins the parts of a batch's content back, as read.
func removeHeaders(content string) string {
	var b strings.Builder
	for _, line := range strings.Split(content, "\n") {
		if _, _, ok := batch.ParseHeader(line); ok {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

func TestPackCountedRefusals(t *testing.T) {
	const skeleton = "Q: what?"
	_, err := batch.PackSeqWith(thirds{}, skeleton, 3, func(func(batch.Item) bool) { t.Fatal("an item was drawn") })
	require.ErrorIs(t, err, batch.ErrPromptTooLarge)

	// The header alone does not fit: the item is refused, and no more are
	// drawn once packing stops, nor is the sequence still running after.
	drawn, finished := 0, false
	_, err = batch.PackSeqWith(thirds{}, skeleton, 12, func(yield func(batch.Item) bool) {
		defer func() { finished = true }()
		for i := range 1000 {
			drawn++
			if !yield(batch.Item{ID: strings.Repeat("x", 30+i), Text: "t"}) {
				return
			}
		}
	})
	var tooSmall *batch.TooSmallError
	require.ErrorAs(t, err, &tooSmall)
	assert.Equal(t, strings.Repeat("x", 30), tooSmall.ID)
	assert.True(t, finished, "the drawing ended before PackSeqWith returned")
	assert.Less(t, drawn, 1000, "packing stopped drawing")

	_, err = batch.PackSeqWith(thirds{}, skeleton, 12, func(yield func(batch.Item) bool) { yield(batch.Item{ID: strings.Repeat("y", 40)}) })
	assert.ErrorAs(t, err, &tooSmall, "an empty text whose header does not fit")
}
