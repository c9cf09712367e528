package offline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestReadQuestion(t *testing.T) {
	tests := []struct {
		query   string
		global  bool
		content []string
	}{
		{"What is this story about?", true, nil},
		{"What is this about?", true, nil},
		{"What do they say about Marley?", false, []string{"say", "marley"}},
		{"Summarize the story.", true, nil},
		{"Who are the main characters and how do they change?", true, nil},
		{"What is the role of the spirits?", true, []string{"spirit"}},
		{"Who was Scrooge's business partner?", false, []string{"scrooge", "business", "partner"}},
		{"What is it, and why are they there?", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			q := readQuestion(tc.query)
			assert.Equal(t, tc.global, q.global)
			assert.Equal(t, tc.content, q.content)
		})
	}
}

func TestBoilerplateSentence(t *testing.T) {
	tests := []struct {
		sentence string
		want     bool
	}{
		{"The Foundation makes no representations concerning the copyright status of any work.", true},
		{"Volunteers handle the electronic distribution of the works.", true},
		{"The community is supported by volunteers and donors under tax-exempt status.", true},
		{"The Foundation is a nonprofit organized under state law.", false},
		{"Scrooge founded a charity for the poor.", false},
		{"Several boat owners sold their licences within months.", false},
		{"The gentlemen seek charitable donations for the poor.", false},
		{"The house shows no legal or technical compliance concerns.", false},
		{"The spirit of Christmas transforms Scrooge.", false},
	}
	for _, tc := range tests {
		t.Run(tc.sentence, func(t *testing.T) {
			assert.Equal(t, tc.want, boilerplateSentence(tc.sentence))
		})
	}
}

// globalBatch is a batch of three communities of different centrality and
// one of licence terms, the most central of all.
var globalBatch = []globalsearch.MapPart{
	{CommunityID: "minor", Part: 1, Centrality: 2, Text: "[Community summary]\nThe baker sells bread to the town every morning."},
	{CommunityID: "licence", Part: 1, Centrality: 9, Text: "[Community summary]\nThe ebook is distributed under a licence. " +
		"Copyright holders grant permission to redistribute it. The archive accepts donations."},
	{CommunityID: "central", Part: 1, Centrality: 8.5, Text: "[Community summary]\nThe miser learns generosity over one night. " +
		"Three visits change his heart.\n\n[Supporting claims]\n- Miser -> Clerk: The miser underpays his clerk."},
	{CommunityID: "middle", Part: 1, Centrality: 5, Text: "[Community summary]\nThe clerk's family keeps a modest home."},
}

func mapOf(t *testing.T, query string, parts []globalsearch.MapPart) (string, int) {
	t.Helper()
	resp, err := New().Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: query, Parts: parts, MaxTokens: 512})
	require.NoError(t, err)
	answer, usefulness, err := globalsearch.ParseMapOutput(resp.Text)
	require.NoError(t, err)
	return answer, int(usefulness)
}

// docs/contract.md#offline-model: a global question is answered from the
// most central communities, boilerplate left out, below a good match.
func TestGlobalMap(t *testing.T) {
	tests := []struct {
		name, query  string
		wantFirst    string // the sentence the answer starts with
		wantAbsent   []string
		wantAtMost   int
		wantNoAnswer bool
	}{
		{name: "no content terms: the most central community first", query: "What is this story about?",
			wantFirst:  "The miser learns generosity over one night. [Data: Reports (central)]",
			wantAbsent: []string{"licence", "Copyright", "->", "underpays"}, wantAtMost: globalMax},
		{name: "a genre word that matches ranks a community's sentences", query: "What changes over the story?",
			wantFirst: "Three visits change his heart. [Data: Reports (central)]", wantAtMost: globalMax},
		{name: "content terms that match: the best match", query: "Whom does the miser underpay?",
			wantFirst: "The miser underpays his clerk. [Data: Reports (central)]", wantAtMost: 100},
		{name: "content terms that match nothing: a weaker answer from centrality", query: "What is the role of the wizards?",
			wantFirst: "The miser learns generosity over one night. [Data: Reports (central)]", wantAtMost: fallbackMax},
		{name: "asked about licensing, the licence is the answer", query: "What are the licence terms of the ebook?",
			wantFirst: "The ebook is distributed under a licence. [Data: Reports (licence)]", wantAtMost: 100},
		{name: "not global and no match: nothing", query: "Who are the wizards?", wantNoAnswer: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answer, u := mapOf(t, tc.query, globalBatch)
			if tc.wantNoAnswer {
				assert.Empty(t, answer)
				assert.Zero(t, u)
				return
			}
			assert.True(t, strings.HasPrefix(answer, tc.wantFirst), answer)
			assert.Positive(t, u)
			assert.LessOrEqual(t, u, tc.wantAtMost)
			for _, s := range tc.wantAbsent {
				assert.NotContains(t, answer, s)
			}
		})
	}
}

// Usefulness of a global answer grows with the centrality of the batch's
// communities; diversity: one sentence of each community before a second.
func TestGlobalMapFollowsCentrality(t *testing.T) {
	low := []globalsearch.MapPart{{CommunityID: "a", Part: 1, Centrality: 1, Text: "[Community summary]\nThe clerk's family keeps a modest home."}}
	answerHigh, high := mapOf(t, "What are the top themes?", globalBatch)
	_, lowU := mapOf(t, "What are the top themes?", low)
	assert.Greater(t, high, lowU)
	assert.Positive(t, lowU)
	ids := globalsearch.ParseCitations(answerHigh)
	assert.Equal(t, []string{"central", "middle", "minor"}, ids, "three communities, the most central first")
}

func reduceOf(t *testing.T, responseType string, cands ...globalsearch.Candidate) string {
	t.Helper()
	resp, err := New().Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Query: "q",
		Candidates: cands, ResponseType: responseType, MaxTokens: 1024})
	require.NoError(t, err)
	var out struct{ Answer string }
	require.NoError(t, json.Unmarshal([]byte(resp.Text), &out))
	return out.Answer
}

// Reduce keeps each sentence's own mark; a sentence several candidates say
// cites their communities together, up to maxMarkIDs; a sentence no mark
// follows cites its candidate's communities. A candidate of the older
// form (a cached map answer) merges alike, and is cited in the new one.
func TestReduceKeepsSentenceMarks(t *testing.T) {
	got := reduceOf(t, "single paragraph",
		globalsearch.Candidate{Usefulness: 90, CommunityIDs: []string{"a", "b"},
			Answer: "Scrooge is a miser. [Data: Reports (a)] Marley is dead. [Data: Reports (b)]"},
		globalsearch.Candidate{Usefulness: 80, CommunityIDs: []string{"c", "d", "e"},
			Answer: "Scrooge is a miser! [Data: Communities (c, d)] Tim lives. [data: community (e)] Bob works."},
		globalsearch.Candidate{Usefulness: 70, CommunityIDs: []string{"f"}, Answer: "Scrooge is a miser. [Data: Reports (f)]"},
	)
	assert.Equal(t, "Scrooge is a miser. [Data: Reports (a, c, d)] Marley is dead. [Data: Reports (b)] "+
		"Tim lives. [Data: Reports (e)] Bob works. [Data: Reports (c, d, e)]", got)
}

// docs/contract.md#offline-model: the answer takes the form responseType asks.
func TestReduceLayout(t *testing.T) {
	cands := []globalsearch.Candidate{
		{Usefulness: 90, CommunityIDs: []string{"a"}, Answer: "One is first. Two is second. Three is third."},
		{Usefulness: 80, CommunityIDs: []string{"b"}, Answer: "Four is fourth. Five is fifth."},
	}
	tests := []struct{ responseType, want string }{
		{"multiple paragraphs", "One is first. [Data: Reports (a)] Two is second. [Data: Reports (a)] Three is third. [Data: Reports (a)]\n\n" +
			"Four is fourth. [Data: Reports (b)] Five is fifth. [Data: Reports (b)]"},
		{"a bulleted list", "- One is first. [Data: Reports (a)]\n- Two is second. [Data: Reports (a)]\n- Three is third. [Data: Reports (a)]\n" +
			"- Four is fourth. [Data: Reports (b)]\n- Five is fifth. [Data: Reports (b)]"},
		{"Single Paragraph", "One is first. [Data: Reports (a)] Two is second. [Data: Reports (a)] Three is third. [Data: Reports (a)] " +
			"Four is fourth. [Data: Reports (b)] Five is fifth. [Data: Reports (b)]"},
		{"one sentence", "One is first. [Data: Reports (a)]"},
		{"one line", "One is first. [Data: Reports (a)] Two is second. [Data: Reports (a)] Three is third. [Data: Reports (a)] " +
			"Four is fourth. [Data: Reports (b)] Five is fifth. [Data: Reports (b)]"},
		{"a report", "One is first. [Data: Reports (a)] Two is second. [Data: Reports (a)] Three is third. [Data: Reports (a)]\n\n" +
			"Four is fourth. [Data: Reports (b)] Five is fifth. [Data: Reports (b)]"},
	}
	for _, tc := range tests {
		t.Run(tc.responseType, func(t *testing.T) {
			assert.Equal(t, tc.want, reduceOf(t, tc.responseType, cands...))
		})
	}
}

// A community titled after the distribution's terms is left out whole, even
// when most of its sentences read like the story's (an import's report on the
// foundation that distributes a book mentions its city and volunteers).
func TestBoilerplateTitleLeavesTheCommunityOut(t *testing.T) {
	foundation := globalsearch.MapPart{CommunityID: "foundation", Part: 1, Centrality: 9, Text: "[Community summary]\n" +
		"# Literary Archive Foundation and U.S. Copyright Community\n\n" +
		"The community centers on the foundation and its work. Its offices are in Salt Lake City. " +
		"It is supported by volunteers and agents."}
	story := globalsearch.MapPart{CommunityID: "story", Part: 1, Centrality: 2, Text: "[Community summary]\n" +
		"# The Miser and his Clerk\n\nThe miser learns generosity over one night. Three visits change his heart."}
	tests := []struct {
		name      string
		heading   string
		wantCited bool
	}{
		{"boilerplate title", foundation.Text, false},
		{"title of the story", strings.Replace(foundation.Text, "# Literary Archive Foundation and U.S. Copyright Community", "# The City Offices", 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			part := foundation
			part.Text = tc.heading
			answer, _ := mapOf(t, "What is this story about?", []globalsearch.MapPart{part, story})
			assert.Contains(t, answer, "Reports (story)")
			assert.Equal(t, tc.wantCited, strings.Contains(answer, "Reports (foundation)"), answer)
		})
	}
}
