package offline

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// genericQuestions are four generic questions that ask different things
// of a whole corpus (docs/contract.md#offline-model).
var genericQuestions = []string{
	"What is this corpus about?",
	"What are the main conflicts?",
	"Who are the key people and how do they relate?",
	"What are the main themes?",
}

func TestQuestionAspect(t *testing.T) {
	tests := []struct {
		query   string
		want    aspect
		content []string
	}{
		{"What is this corpus about?", aspectOverview, nil},
		{"Summarize the story.", aspectOverview, nil},
		{"What are the main conflicts?", aspectConflict, nil},
		{"What struggles and tensions run through the book?", aspectConflict, []string{"run"}},
		{"Who are the key people and how do they relate?", aspectPeople, nil},
		{"Who are the main characters and how do they change?", aspectPeople, nil},
		{"Who matters most in the story?", aspectPeople, []string{"matter"}},
		{"What are the main themes?", aspectTheme, nil},
		{"What is the moral of the tale?", aspectTheme, nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			q := readQuestion(tc.query)
			assert.True(t, q.global)
			assert.Equal(t, tc.want, q.aspect)
			assert.Equal(t, tc.content, q.content)
		})
	}
}

func TestCues(t *testing.T) {
	tests := []struct {
		name, sentence string
		aspect         aspect
		asked          []string
		want           float64
	}{
		{"a cue by its prefix", "The millers struggled with the guild.", aspectConflict, nil, 1},
		{"cues count once each", "Fear and fear and danger.", aspectConflict, nil, 2},
		{"a whole-word cue", "He was her partner at the mill.", aspectPeople, nil, 1},
		{"a whole-word cue is no prefix", "The partnership of two firms.", aspectPeople, nil, 0},
		{"the question's word weighs 2", "The conflict divides the town.", aspectConflict, []string{"conflict"}, 2},
		{"another aspect's cue is none", "The conflict divides the town.", aspectTheme, nil, 0},
		{"no cue", "The river runs to the sea.", aspectTheme, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked := map[string]bool{}
			for _, w := range tc.asked {
				asked[w] = true
			}
			assert.Equal(t, tc.want, cues(termSet(tc.sentence), tc.aspect, asked))
		})
	}
}

// Names are the capitalised words after a sentence's first, and the
// central ones are those most of the batch's communities name.
func TestCentralNames(t *testing.T) {
	// Not the first word, a stopword or the report's own words.
	assert.Equal(t, map[string]bool{"ada": true, "brook": true, "ghost": true, "tom": true},
		nameSet("Then Ada Brook met The Ghost of Tom and the Community."))
	sents := []sentence{
		{text: "The mill of Ada Brook.", community: "a"},
		{text: "Later Ada sold it to Tom.", community: "b"},
		{text: "And Ada left.", community: "b"},
	}
	assert.Equal(t, map[string]float64{"ada": 1, "brook": 0.5, "tom": 0.5}, centralNames(sents))
}

func TestRunInHeading(t *testing.T) {
	tests := []struct {
		sentence string
		want     bool
	}{
		{"Climate and water.", true},
		{"Energy.", true},
		{"2014.", true},
		{"Work and skills.", true},
		{"Fishing and the fish quay.", true},
		{"The city and its neighbourhoods.", true},
		{"Trade, ports, partners.", true},
		{"The decade opened quietly.", false},
		{"Construction dominated the year.", false},
		{"Recovery became an opportunity.", false},
		{"Scrooge and Marley were partners.", false},
		{"Bob and Tim walked home.", false},
		{"Energy!", false},
		{"Climate and water", false},
		{"The drought and the storm were the decade's two great shocks to the port, and both arrived late.", false},
	}
	for _, tc := range tests {
		t.Run(tc.sentence, func(t *testing.T) {
			assert.Equal(t, tc.want, runInHeading(tc.sentence))
		})
	}
}

// A heading is no sentence, whether run into its paragraph or standing
// alone on its line; a part that continues a split text starts with no
// heading, however short its first words.
func TestHeadingsAreNotSentences(t *testing.T) {
	parts := []globalsearch.MapPart{
		{CommunityID: "a", Part: 1, Text: "[Community summary]\n# Port Calder\n\nClimate and water. The drought was the decade's great shock.\n\n" +
			"Energy.\nNo part of the port changed more than its power supply."},
		{CommunityID: "b", Part: 2, Text: "Fish and chips. The quay sold them."},
	}
	whole, fragments := partSentences(parts)
	assert.Equal(t, []string{"The drought was the decade's great shock.", "No part of the port changed more than its power supply.",
		"The quay sold them."}, whole)
	assert.Equal(t, []string{"Fish and chips."}, fragments, "the tail of a cut text, not a heading")
}

// On the sample index, whose chronicle runs headings into its paragraphs,
// no answer quotes one, even to a question that uses its words.
func TestSampleAnswersQuoteNoHeading(t *testing.T) {
	f, err := indexfile.Load(filepath.Join("..", "..", "..", "testdata", "sample-index.json"))
	require.NoError(t, err)
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	heading := regexp.MustCompile(`(^|[.!?] |\] |\n)(Climate and water|Energy|Governance|Outlook|Work and skills|Trade and partners|20\d\d)\. `)
	for _, query := range append([]string{"How did climate and water shape the port?", "What happened to energy and governance?"}, genericQuestions...) {
		t.Run(query, func(t *testing.T) {
			res := searchOnce(t, store, f.Namespace, query)
			assert.NotRegexp(t, heading, res.Answer)
		})
	}
}

// aspectBatch is one batch whose communities each speak to one aspect.
var aspectBatch = []globalsearch.MapPart{
	{CommunityID: "overview", Part: 1, Centrality: 6, Text: "[Community summary]\nThe town of Harrow trades wool and grain along the river. " +
		"The river trade makes Harrow grow."},
	{CommunityID: "strife", Part: 1, Centrality: 5, Text: "[Community summary]\nThe river boats carry grain for the town. " +
		"The millers struggle against the guild, and the conflict divides the town."},
	{CommunityID: "kin", Part: 1, Centrality: 5, Text: "[Community summary]\nThe mill stands by the river. " +
		"Ada Brook is the daughter of the miller and the partner of Tom Reed."},
	{CommunityID: "ideas", Part: 1, Centrality: 5, Text: "[Community summary]\nThe wool market opens each spring. " +
		"The chronicle explores themes of thrift, loyalty and the meaning of work."},
}

// Each generic question leads with the community that speaks to it.
func TestGenericQuestionsLeadWithTheirAspect(t *testing.T) {
	want := []string{"overview", "strife", "kin", "ideas"}
	var firsts []string
	for i, query := range genericQuestions {
		t.Run(query, func(t *testing.T) {
			answer, u := mapOf(t, query, aspectBatch)
			require.Positive(t, u)
			assert.LessOrEqual(t, u, globalMax)
			ids := globalsearch.ParseCitations(answer)
			require.NotEmpty(t, ids)
			assert.Equal(t, want[i], ids[0], answer)
			firsts = append(firsts, strings.SplitAfter(answer, "]")[0])
		})
	}
	assert.Len(t, uniq(firsts), len(genericQuestions), "four questions, four leads")
}

// A batch whose lead speaks to the aspect is more useful than one whose
// communities are as central but do not.
func TestGenericUsefulnessFollowsTheAspect(t *testing.T) {
	_, with := mapOf(t, "What are the main conflicts?", aspectBatch[:2])
	_, without := mapOf(t, "What are the main conflicts?", []globalsearch.MapPart{aspectBatch[0], aspectBatch[3]})
	assert.Greater(t, with, without)
	assert.Positive(t, without)
}

// dulceDir is the Operation Dulce GraphRAG output beside the repository,
// whatever its folder is named, or "" when there is none.
func dulceDir(t *testing.T) string {
	t.Helper()
	root := filepath.Dir(corpusRoot(t))
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "community_reports.parquet")); err == nil && strings.Contains(strings.ToLower(e.Name()), "dulce") {
			return dir
		}
	}
	return ""
}

// corpusRoot is the Christmas Carol corpus folder (skipping without it).
func corpusRoot(t *testing.T) string { return corpus.Dir(t, corpus.ChristmasCarol) }

// On real GraphRAG outputs, four generic questions give four answers that
// lead with four different sentences, each of what its question asks, and
// rest on communities more central than the average.
func TestGenericQuestionsOnRealCorpora(t *testing.T) {
	corpora := map[string]string{"carol": corpusRoot(t)}
	if dir := dulceDir(t); dir != "" {
		corpora["dulce"] = dir
	} else {
		t.Log("no Operation Dulce output beside the repository: only A Christmas Carol is asked")
	}
	leads := []*regexp.Regexp{
		nil,
		regexp.MustCompile(`(?i)\b(conflict|struggl|oppos|fight|tension|rival|enem|threat|resist|disput|clash|confront|hostil|fear|danger|protest|strike|hardship|dilemma|suffer|challeng|crisis)`),
		regexp.MustCompile(`\S\s+[\p{Lu}][\p{L}’']+.*\S\s+[\p{Lu}][\p{L}’']+`), // two names after the first word
		regexp.MustCompile(`(?i)\b(theme|moral|lesson|message|symbol|meaning)`),
	}
	for name, dir := range corpora {
		t.Run(name, func(t *testing.T) {
			records, _, err := graphrag.Import(context.Background(), dir, graphrag.Options{})
			require.NoError(t, err)
			store := memstore.New()
			require.NoError(t, store.ReplaceNamespace(context.Background(), name, records))
			rank := map[string]float64{}
			mean := 0.0
			for _, s := range records.Summaries {
				rank[s.ID] = s.Rank
				mean += s.Rank / float64(len(records.Summaries))
			}
			var answers, firsts []string
			for i, query := range genericQuestions {
				res := searchOnce(t, store, name, query)
				read := readAnswer(t, res.Answer)
				require.NotEmpty(t, read.sentences, query)
				answers, firsts = append(answers, res.Answer), append(firsts, read.sentences[0])
				if leads[i] != nil {
					assert.Regexp(t, leads[i], read.sentences[0], query)
				}
				cited := 0.0
				for _, c := range res.Citations {
					cited += rank[c.CommunityID] / float64(len(res.Citations))
				}
				if mean > 0 { // an output without ranks falls back on size, which the import does not keep
					assert.Greater(t, cited, mean, "%s: rests on central communities", query)
				}
				t.Logf("%s\n%s", query, res.Answer)
			}
			assert.Len(t, uniq(answers), len(genericQuestions), "four questions, four answers")
			assert.Len(t, uniq(firsts), len(genericQuestions), "four questions, four first sentences")
			if name == "carol" {
				assert.Regexp(t, `Scrooge|Cratchit|Marley|Fred|Fezziwig|Tim`, firsts[2], "the people are the story's")
				assert.Contains(t, answers[0], "Christmas Carol", "the overview names the book")
			}
			assert.Equal(t, answers[1], searchOnce(t, store, name, genericQuestions[1]).Answer, "the same answer on every run")
		})
	}
}

// searchOnce asks query of namespace with the offline model, unshuffled,
// and requires a completed search that cites only valid communities.
func searchOnce(t *testing.T, store *memstore.Store, namespace, query string) globalsearch.Result {
	t.Helper()
	engine := &globalsearch.Engine{Index: store, Runs: store, Model: New()}
	noShuffle, noCache := false, false
	p, err := globalsearch.Request{Query: query, Namespace: namespace, Shuffle: &noShuffle, Cache: &noCache}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	res, err := engine.Search(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
	assert.NotEmpty(t, res.Citations)
	assert.Zero(t, res.Diagnostics.InvalidCitations)
	assert.False(t, slices.ContainsFunc(res.Citations, func(c globalsearch.Citation) bool { return c.CommunityID == "" }))
	return res
}
