package offline

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// A whole sentence as a reader sees one, written independently of the
// model's own rules: it opens with a capital or a digit (after opening
// quotes or italics) and closes with terminal punctuation (before closing
// quotes or italics).
var (
	sentenceStart = regexp.MustCompile(`^['"‘“(_*]*[\p{Lu}\p{N}]`)
	sentenceEnd   = regexp.MustCompile(`[.!?]['"’”)_*]*$`)
)

// TestChristmasCarolAnswers asks global questions of the real GraphRAG
// index of "A Christmas Carol", imported as a user would, and reads the
// answers as a user would: sentences, not line fragments, none said twice.
func TestChristmasCarolAnswers(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	questions := []struct {
		query string
		// want is named in the answer where the answer is obvious.
		want string
	}{
		{query: "Who is the protagonist of the story?", want: "Scrooge"},
		{query: "Who was Scrooge's business partner?", want: "Marley"},
		{query: "Who is Scrooge's nephew?", want: "Fred"},
		{query: "Which spirits visit Scrooge?"},
		{query: "What happens to Tiny Tim?"},
		{query: "What are the top themes of the story?"},
		{query: "Describe the main events at the Cratchit family's Christmas dinner."},
	}
	// source-text is what a user gets; text-unit cites whole hard-wrapped
	// chunks of the book, the harder text to cut into sentences.
	for _, mode := range []graphrag.Excerpts{graphrag.ExcerptsSourceText, graphrag.ExcerptsTextUnit} {
		records, _, err := graphrag.Import(context.Background(), dir, graphrag.Options{Excerpts: mode})
		require.NoError(t, err)
		store := memstore.New()
		require.NoError(t, store.ReplaceNamespace(context.Background(), "carol", records))
		engine := &globalsearch.Engine{Index: store, Runs: store, Model: New()}
		for _, q := range questions {
			t.Run(string(mode)+"/"+q.query, func(t *testing.T) {
				noShuffle := false
				p, err := globalsearch.Request{Query: q.query, Namespace: "carol", Shuffle: &noShuffle}.Params(globalsearch.SpecDefaults)
				require.NoError(t, err)
				res, err := engine.Search(context.Background(), p)
				require.NoError(t, err)
				require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
				t.Log(res.Answer)

				// The answer is the model's sentences joined by spaces; its
				// own splitter finds them again, and the checks above judge
				// each one.
				// Every sentence cites the communities it came from
				// (docs/contract.md#result), all of them valid.
				assert.NotEmpty(t, res.Citations)
				assert.Zero(t, res.Diagnostics.InvalidCitations)
				said := map[string]bool{}
				for _, s := range appendSentences(nil, withoutCitations(res.Answer)) {
					assert.Regexp(t, sentenceStart, s, "starts as a sentence starts")
					assert.Regexp(t, sentenceEnd, s, "ends as a sentence ends")
					key := normalise(s)
					assert.False(t, said[key], "said twice: %q", s)
					said[key] = true
				}
				assert.GreaterOrEqual(t, len(said), 2, "an answer, not a line")
				if q.want != "" {
					assert.Contains(t, res.Answer, q.want)
				}
			})
		}
	}
}

var citationMark = regexp.MustCompile(` ?\[Data: Reports \([^)]*\)\]`)

// withoutCitations is an answer without its citation marks.
func withoutCitations(answer string) string {
	return citationMark.ReplaceAllString(answer, "")
}
