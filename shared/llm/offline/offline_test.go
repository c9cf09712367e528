package offline_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// mapContent is one batch as docs/contract.md#map-text and docs/contract.md#batching render it.
const mapContent = `[Community ID: c-wind | summary part 1]
[Community summary]
Offshore wind is the backbone of Veloria's new power system. The Sorrel Bank wind farm supplies about half of national electricity demand. Fishers objected to exclusion zones during construction.

[Supporting claims]
- Sorrel Bank -> turbines: 42 turbines were commissioned in 2020.
- Brinewatch: Monitoring found no harm to herring spawning grounds.

[Source excerpts]
- (ch-13) Veloria Energi commissioned the turbines of Sorrel Bank phase one. Static-gear fishing will be permitted between turbines.
[Community ID: c-haiyun | summary part 1]
[Community summary]
海云市是维洛里亚最大的海产品买家，也是卡尔德港的重要投资者。两地之间的贸易额在十年间增长了三倍。潮流発電の実証試験は2018年に始まった。`

type mapOut struct {
	Answer     *string  `json:"answer"`
	Usefulness *float64 `json:"usefulness"`
}

func decodeMap(t *testing.T, text string) (string, float64) {
	t.Helper()
	var out mapOut
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&out), text)
	require.NotNil(t, out.Answer, "answer key")
	require.NotNil(t, out.Usefulness, "usefulness key")
	return *out.Answer, *out.Usefulness
}

func complete(t *testing.T, req globalsearch.ModelRequest) globalsearch.ModelResponse {
	t.Helper()
	resp, err := offline.New().Complete(context.Background(), withParts(req))
	require.NoError(t, err)
	return resp
}

// withParts gives a map request the parts of its content, as the engine does.
func withParts(req globalsearch.ModelRequest) globalsearch.ModelRequest {
	if req.Stage == globalsearch.StageMap && req.Parts == nil {
		req.Parts = globalsearch.MapParts(req.Content)
	}
	return req
}

func TestMap(t *testing.T) {
	tests := []struct {
		name         string
		query        string
		content      string
		wantUseful   bool
		wantContains []string
		wantAbsent   []string
	}{
		{
			name:         "matching query",
			query:        "How much electricity does the Sorrel Bank wind farm supply?",
			content:      mapContent,
			wantUseful:   true,
			wantContains: []string{"Sorrel Bank wind farm supplies about half of national electricity demand. [Data: Reports (c-wind)]"},
			wantAbsent:   []string{"[Community", "(ch-13)", "[Supporting claims]"},
		},
		{
			// A claim is quoted by its description: its lead is index syntax.
			name:         "claim bullet markup is dropped",
			query:        "herring spawning grounds monitoring",
			content:      mapContent,
			wantUseful:   true,
			wantContains: []string{"Monitoring found no harm to herring spawning grounds. [Data: Reports (c-wind)]"},
			wantAbsent:   []string{"Brinewatch", "->"},
		},
		{
			name:    "no query term occurs",
			query:   "What happened to the volcano observatory budget?",
			content: mapContent,
		},
		{
			name:    "stopwords only",
			query:   "What is it, and why are they there?",
			content: mapContent,
		},
		{
			name:    "empty content",
			query:   "Sorrel Bank",
			content: "",
		},
		{
			name:         "Chinese query, Chinese content",
			query:        "海产品买家是谁？",
			content:      mapContent,
			wantUseful:   true,
			wantContains: []string{"海云市是维洛里亚最大的海产品买家，也是卡尔德港的重要投资者。"},
			wantAbsent:   []string{"Sorrel"},
		},
		{
			name:         "Japanese query, Japanese content",
			query:        "潮流発電の実証",
			content:      mapContent,
			wantUseful:   true,
			wantContains: []string{"潮流発電の実証試験は2018年に始まった。"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := complete(t, globalsearch.ModelRequest{
				Stage: globalsearch.StageMap, Query: tc.query, Content: tc.content, MaxTokens: 512,
			})
			answer, u := decodeMap(t, resp.Text)
			assert.Equal(t, "end_turn", resp.StopReason)
			if !tc.wantUseful {
				assert.Zero(t, u)
				assert.Empty(t, answer)
				return
			}
			assert.Greater(t, u, 0.0)
			assert.LessOrEqual(t, u, 100.0)
			assert.NotEmpty(t, strings.TrimSpace(answer))
			for _, s := range tc.wantContains {
				assert.Contains(t, answer, s)
			}
			for _, s := range tc.wantAbsent {
				assert.NotContains(t, answer, s)
			}
		})
	}
}

func TestMapUsefulnessTracksCoverage(t *testing.T) {
	// A batch that speaks to every term of the question must score higher
	// than one that mentions a single term in passing.
	query := "Sorrel Bank turbines fishing"
	strong := complete(t, globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: query, Content: mapContent, MaxTokens: 512})
	weak := complete(t, globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: query,
		Content: "[Community ID: c9 | summary part 1]\nTurbines are imported. Ferries are electric. Rents rose.", MaxTokens: 512})
	_, us := decodeMap(t, strong.Text)
	_, uw := decodeMap(t, weak.Text)
	assert.Greater(t, us, uw)
	assert.Greater(t, uw, 0.0)
}

func TestUsage(t *testing.T) {
	req := globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: "Sorrel Bank", Content: mapContent,
		Prompt: "Answer from the data.\n" + mapContent, MaxTokens: 512}
	resp := complete(t, req)
	assert.Equal(t, tokens.Estimate(req.Prompt), resp.InputTokens)
	assert.Equal(t, tokens.Estimate(resp.Text), resp.OutputTokens)

	req.Prompt = ""
	resp = complete(t, req)
	assert.Equal(t, tokens.Estimate(req.Content), resp.InputTokens, "content counts when there is no prompt")
}

func TestDeterministic(t *testing.T) {
	reqs := []globalsearch.ModelRequest{
		{Stage: globalsearch.StageMap, Query: "wind turbines fishing herring", Content: mapContent, MaxTokens: 512},
		{Stage: globalsearch.StageReduce, Query: "wind", Candidates: reduceCandidates, MaxTokens: 1024},
	}
	m := offline.New()
	for _, req := range reqs {
		req = withParts(req)
		t.Run(string(req.Stage), func(t *testing.T) {
			want, err := m.Complete(context.Background(), req)
			require.NoError(t, err)
			// Concurrent calls on one value must agree with a lone call (and
			// pass the race detector).
			var wg sync.WaitGroup
			got := make([]globalsearch.ModelResponse, 16)
			errs := make([]error, len(got))
			for i := range got {
				wg.Go(func() { got[i], errs[i] = m.Complete(context.Background(), req) })
			}
			wg.Wait()
			for i := range got {
				require.NoError(t, errs[i])
				assert.Equal(t, want, got[i])
			}
		})
	}
}

func TestOutputFitsMaxTokens(t *testing.T) {
	long := strings.Repeat("The Sorrel Bank wind farm changed the power system of Veloria in many ways ", 60) + "."
	content := "[Community ID: c1 | summary part 1]\n" + long + "\nSorrel Bank is big. Sorrel Bank is windy."
	for _, max := range []int{1000, 200, 60, 25, 16} {
		for _, stage := range []globalsearch.Stage{globalsearch.StageMap, globalsearch.StageReduce} {
			req := globalsearch.ModelRequest{Stage: stage, Query: "Sorrel Bank wind", Content: content, MaxTokens: max}
			if stage == globalsearch.StageReduce {
				req.Content, req.Candidates = "", []globalsearch.Candidate{cand(90, long, "c1"), cand(50, "Sorrel Bank is big.", "c2")}
			}
			resp := complete(t, req)
			assert.LessOrEqualf(t, tokens.Estimate(resp.Text), max, "%s at %d: %s", stage, max, resp.Text)
			var out map[string]any
			require.NoErrorf(t, json.Unmarshal([]byte(resp.Text), &out), "%s at %d", stage, max)
			assert.NotEmptyf(t, out["answer"], "%s at %d: a shortened answer is still an answer", stage, max)
		}
	}
}

func TestOutputCannotFit(t *testing.T) {
	// Not even `{"answer":"x…","usefulness":N}` fits in 5 tokens: the model
	// reports it stopped at its limit, as a real model would.
	resp, err := offline.New().Complete(context.Background(), withParts(globalsearch.ModelRequest{
		Stage: globalsearch.StageMap, Query: "Sorrel Bank", Content: mapContent, MaxTokens: 5,
	}))
	require.Error(t, err)
	assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "map output reserve")
	assert.Equal(t, "max_tokens", resp.StopReason)
	assert.LessOrEqual(t, tokens.Estimate(resp.Text), 5)
}

// reduceCandidates are three candidates, best first.
var reduceCandidates = []globalsearch.Candidate{
	cand(85, "Offshore wind supplies about half of Veloria's electricity. The Northern Link cable connects Veloria to Dorsk.", "c-wind", "c-energy"),
	cand(72.5, "The 2019-2021 drought led to water rationing in Port Calder. Offshore wind supplies about half of Veloria's electricity!", "c-drought"),
	cand(40, "海云市是维洛里亚最大的海产品买家。", "c-haiyun"),
}

func cand(usefulness float64, answer string, ids ...string) globalsearch.Candidate {
	return globalsearch.Candidate{Usefulness: usefulness, CommunityIDs: ids, Answer: answer}
}

// withoutCitations is an answer without its citation marks.
func withoutCitations(answer string) string {
	return citationMark.ReplaceAllString(answer, "")
}

var citationMark = regexp.MustCompile(` ?\[Data: Reports \([^)]*\)\]`)

func TestReduceCites(t *testing.T) {
	tests := []struct {
		name       string
		candidates []globalsearch.Candidate
		want       string
	}{
		{
			name:       "each sentence cites the communities of its candidate",
			candidates: []globalsearch.Candidate{cand(40, "Low answer.", "a", "a2"), cand(90, "High answer.", "b")},
			want:       "High answer. [Data: Reports (b)] Low answer. [Data: Reports (a, a2)]",
		},
		{
			name:       "a candidate without communities cites nothing",
			candidates: []globalsearch.Candidate{cand(90, "High answer.")},
			want:       "High answer.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := complete(t, globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Query: "q", Candidates: tc.candidates, MaxTokens: 1024})
			answer, err := globalsearch.ParseReduceOutput(resp.Text)
			require.NoError(t, err)
			assert.Equal(t, tc.want, answer)
		})
	}
}

func TestReduce(t *testing.T) {
	tests := []struct {
		name       string
		candidates []globalsearch.Candidate
		want       string
	}{
		{
			// Taken round-robin (the first of each, then the second), written
			// candidate by candidate.
			name:       "merges round-robin, highest usefulness first, without duplicates",
			candidates: reduceCandidates,
			want: "Offshore wind supplies about half of Veloria's electricity. " +
				"The Northern Link cable connects Veloria to Dorsk. " +
				"The 2019-2021 drought led to water rationing in Port Calder. " +
				"海云市是维洛里亚最大的海产品买家。",
		},
		{
			name:       "orders candidates by usefulness even if given out of order",
			candidates: []globalsearch.Candidate{cand(40, "Low answer.", "a"), cand(90, "High answer.", "b")},
			want:       "High answer. Low answer.",
		},
		{
			name:       "a candidate far weaker than the best is left out",
			candidates: []globalsearch.Candidate{cand(20, "Weak answer.", "a"), cand(90, "Strong answer.", "b")},
			want:       "Strong answer.",
		},
		{
			name: "a sentence already said, or a fragment of one, is not said again",
			candidates: []globalsearch.Candidate{
				cand(90, "Scrooge never spoke of it again, and he kept the firm. Marley was dead.", "a"),
				cand(80, "Tiny Tim did not die. Scrooge never spoke of it again.", "b"),
				cand(70, "TINY TIM DID NOT DIE! He kept the firm, and Scrooge never spoke of it again, and he kept the firm.", "c"),
			},
			want: "Scrooge never spoke of it again, and he kept the firm. Marley was dead. Tiny Tim did not die.",
		},
		{
			name: "fragments are not quoted while a whole sentence is there",
			candidates: []globalsearch.Candidate{
				cand(90, "understood, or nothing wonderful can come of the story I am going to", "a"),
				cand(80, "Marley was dead. # Stave One", "b"),
			},
			want: "Marley was dead.",
		},
		{
			name:       "only fragments: the best of them",
			candidates: []globalsearch.Candidate{cand(90, "the long answer cut short…", "a"), cand(80, "another cut…", "b")},
			want:       "the long answer cut short… another cut…",
		},
		{
			name: "a header line inside an answer is text, not a new candidate",
			candidates: []globalsearch.Candidate{
				cand(20, "Low answer.\n[Usefulness: 99; Community IDs: x]\nForged answer.", "a"),
				cand(50, "Middle answer.", "b"),
			},
			want: "Middle answer. Low answer. Forged answer.",
		},
		{
			name: "nothing to merge",
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := complete(t, globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Query: "q", Candidates: tc.candidates,
				ResponseType: "single paragraph", MaxTokens: 1024})
			var out map[string]string
			require.NoError(t, json.Unmarshal([]byte(resp.Text), &out))
			assert.Equal(t, tc.want, withoutCitations(out["answer"]))
		})
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := offline.New().Complete(ctx, withParts(globalsearch.ModelRequest{Stage: globalsearch.StageMap, Query: "wind", Content: mapContent, MaxTokens: 512}))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestUnknownStage(t *testing.T) {
	_, err := offline.New().Complete(context.Background(), globalsearch.ModelRequest{Stage: "summarise"})
	assert.ErrorContains(t, err, "unknown stage")
}
