package offline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// classicQuestions are the global questions a new reader asks first. None
// names anything a corpus holds.
var classicQuestions = []string{
	"What is this story about?",
	"Summarize the story.",
	"What are the top themes?",
	"Who are the main characters and how do they change?",
	"What is the central conflict?",
	"What is the role of the spirits?",
}

var (
	// claimSyntax is a claim's lead as the map text writes it.
	claimSyntax = regexp.MustCompile(`\S -> \S[^:]*:`)
	// licence is vocabulary of licence and distribution terms, written
	// independently of the model's own list.
	licence     = regexp.MustCompile(`(?i)\b(licen[cs]e|copyright|trademark|royalt|donation|tax[- ]deductible|ebooks?)\b`)
	graphragRef = regexp.MustCompile(`\[Data: (Entities|Relationships|Sources|Claims|Reports)`)
	markIDs     = regexp.MustCompile(`\[Data: Reports \(([^()]*)\)\]`)
	// A whole sentence, as carol_test reads one, or one of a script
	// without case (Chinese, Japanese) ended as those scripts end one.
	wholeStart = regexp.MustCompile(`^['"‘“(_*「]*[\p{Lu}\p{N}\p{Lo}]`)
	wholeEnd   = regexp.MustCompile(`[.!?。！？]['"’”)_*」]*$`)
)

// seeds are the shuffles every question is asked under: fixed, so that a
// run repeats, and several, so that no one batch order passes by luck.
var seeds = []int64{1, 7, 42}

// answerRead is an answer as a reader checks it.
type answerRead struct {
	sentences []string
	marks     int
	markedIDs int
}

// readAnswer checks what every answer must be (docs/contract.md#offline-model)
// and returns its sentences and marks.
func readAnswer(t *testing.T, answer string) answerRead {
	t.Helper()
	var r answerRead
	for _, m := range markIDs.FindAllStringSubmatch(answer, -1) {
		r.marks++
		r.markedIDs += len(strings.Split(m[1], ","))
	}
	assert.NotRegexp(t, claimSyntax, answer, "no claim syntax")
	assert.NotRegexp(t, licence, answer, "no licence boilerplate")
	assert.NotRegexp(t, graphragRef, withoutCitations(answer), "no data reference of GraphRAG's own beside the marks")
	said := map[string]bool{}
	for _, s := range appendSentences(nil, strings.Join(strings.Fields(strings.ReplaceAll(withoutCitations(answer), "\n- ", "\n")), " ")) {
		assert.Regexp(t, wholeStart, s, "starts as a sentence starts")
		assert.Regexp(t, wholeEnd, s, "ends as a sentence ends")
		key := normalise(s)
		assert.False(t, said[key], "said twice: %q", s)
		said[key] = true
		r.sentences = append(r.sentences, s)
	}
	return r
}

// searchAll asks every classic question of the namespace through the whole
// engine with the offline model and checks each answer; it returns the
// average number of communities a mark names.
func searchAll(t *testing.T, store *memstore.Store, namespace string, level *globalsearch.Level) float64 {
	t.Helper()
	engine := &globalsearch.Engine{Index: store, Runs: store, Model: New()}
	marks, ids := 0, 0
	for _, q := range classicQuestions {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed %d", q, seed), func(t *testing.T) {
				p, err := globalsearch.Request{Query: q, Namespace: namespace, CommunityLevel: level, ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
				require.NoError(t, err)
				res, err := engine.Search(context.Background(), p)
				require.NoError(t, err)
				require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
				t.Log(res.Answer)
				r := readAnswer(t, res.Answer)
				assert.GreaterOrEqual(t, len(r.sentences), 3, "at least three sentences")
				assert.Positive(t, r.marks, "every sentence is cited")
				assert.Zero(t, res.Diagnostics.InvalidCitations)
				assert.NotEmpty(t, res.Citations)
				marks += r.marks
				ids += r.markedIDs
			})
		}
	}
	require.Positive(t, marks)
	t.Logf("%d marks naming %d communities: %.2f a mark", marks, ids, float64(ids)/float64(marks))
	return float64(ids) / float64(marks)
}

// TestChristmasCarolGlobalQuestions: the real GraphRAG index of "A
// Christmas Carol", imported with its ranks, answers every classic global
// question, each statement cited by the few communities it came from.
func TestChristmasCarolGlobalQuestions(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	store := memstore.New()
	for _, content := range []graphrag.Content{graphrag.ContentSummary, graphrag.ContentFullContent} {
		records, _, err := graphrag.Import(context.Background(), dir, graphrag.Options{Content: content})
		require.NoError(t, err)
		require.NoError(t, store.ReplaceNamespace(context.Background(), "carol-"+strings.ReplaceAll(string(content), "_", "-"), records))
	}
	for _, tc := range []struct {
		name, namespace string
		level           *globalsearch.Level
	}{
		{"leaf", "carol-summary", nil},
		{"level 0", "carol-summary", levelPtr(0)},
		{"level 1", "carol-summary", levelPtr(1)},
		// Whole reports, whose findings carry GraphRAG's own data references.
		{"full content, leaf", "carol-full-content", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			avg := searchAll(t, store, tc.namespace, tc.level)
			assert.LessOrEqual(t, avg, 3.0, "communities per mark, on average")
		})
	}
}

// TestGeneratedGlobalQuestions: generated indexes, without ranks (the
// hierarchy's breadth decides), answer the same questions.
func TestGeneratedGlobalQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an index; skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "index-200.json")
	cmd := exec.Command("go", "run", "./testdata/gen", "--summaries", "200", "--out", out)
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "generate the index: %s", msg)
	indexes := map[string]string{"sample": filepath.Join(root, "testdata", "sample-index.json"), "generated-200": out}
	for _, name := range []string{"sample", "generated-200"} {
		t.Run(name, func(t *testing.T) {
			_, err := os.Stat(indexes[name])
			require.NoError(t, err)
			f, err := indexfile.Load(indexes[name])
			require.NoError(t, err)
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
			for _, level := range []*globalsearch.Level{nil, levelPtr(0)} {
				avg := searchAll(t, store, f.Namespace, level)
				assert.LessOrEqual(t, avg, 3.0, "communities per mark, on average")
			}
		})
	}
}

func levelPtr(l globalsearch.Level) *globalsearch.Level { return &l }
