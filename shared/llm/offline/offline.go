// Package offline is the in-process twin of the model adapters: a
// deterministic, extractive heuristic that needs no network. It is a
// heuristic for demos and tests, not an LLM: it does not read, reason or
// write; it quotes, and what it quotes is chosen by rules that know
// nothing of any one corpus (docs/contract.md#offline-model).
//
// The question: its terms (stopwords dropped) are content terms, or genre
// words that ask about the corpus as a whole ("story", "themes",
// "characters"; genreWords). A question with a genre word, or one that
// ends "about?", is global.
//
// Map: the batch content is split into sentences (header lines, titles and
// bullet markup dropped, a claim quoted by its description alone,
// hard-wrapped lines joined), each sentence knowing its community. The
// sentences are scored against the content terms with BM25 and the best few
// become the answer. Only whole sentences are quoted; fragments (a text cut
// mid-sentence) are used only when no whole sentence matches. Usefulness
// grows with the share of content terms the batch contains and with how
// strongly the best sentence matches. A global question whose content
// terms match nothing here (or that has none) is answered from the batch's
// most central communities (docs/contract.md#centrality), a summary
// sentence of each in turn, led by the sentences that speak to what the
// question asks of the whole (its aspect: an overview, conflicts, people,
// themes; generic.go), with a usefulness that grows with centrality and
// with that match and stays below a good match's. Headings, a Markdown
// title or one run into its paragraph ("Climate and water."), are not
// sentences (runInHeading). Anything else scores exactly 0, with an
// empty answer. Boilerplate (licence and distribution terms; see
// isBoilerplate) is never quoted unless the question asks about it. Every
// sentence is followed by the mark of the community it came from
// (docs/contract.md#citations).
//
// Reduce: the candidate answers weaker than a share of the best are left
// out; the rest are merged sentence by sentence, taking the first sentence
// of each candidate (highest usefulness first), then the second of each,
// and so on, never repeating a sentence or a fragment of one (sentenceSet:
// a repeat adds its community to the mark of the sentence already said),
// so that the answer covers many communities instead of repeating the top
// one. Each sentence keeps its mark. The answer takes the form the
// request's response type asks (layoutOf): paragraphs, a bulleted list or
// one paragraph.
//
// Both stages answer with JSON produced by encoding/json that follows the
// docs/contract.md#model-output contract, shortened to fit req.MaxTokens by the docs/contract.md#token-estimate
// estimate (whole sentences first; the best sentence cut short with "…" if
// it alone is too long). When even the smallest valid answer cannot fit, the
// model behaves as the Bedrock adapter does for a model that hit its limit:
// the response carries the cut-off text with stop reason "max_tokens" and
// the call fails with a model-output error naming the reserve to raise.
// MaxTokens <= 0 means no limit.
package offline

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// Stop reasons, named as Bedrock's Converse API names them.
const (
	stopEndTurn   = "end_turn"
	stopMaxTokens = "max_tokens"
)

const (
	// BM25 parameters: the usual defaults.
	k1 = 1.2
	b  = 0.75

	// mapSentences is how many sentences a map answer quotes at most: enough
	// to carry a finding and its context, few enough to stay an answer.
	mapSentences = 4
	// mapFloor drops sentences scoring below this share of the best one, so
	// that a weak incidental match does not pad a strong answer.
	mapFloor = 0.25
)

// CacheID names the offline model in map-cache keys
// (docs/contract.md#map-cache): its version, raised whenever its rules
// change what it answers, so that a cache never serves the answers of
// older rules.
const CacheID = "offline/3"

// Model is the offline model. It holds no state, so one value is safe for
// any number of goroutines.
type Model struct{}

// New returns the offline model.
func New() *Model { return &Model{} }

var _ globalsearch.Model = (*Model)(nil)

// Complete answers one map or reduce call from req.Query and req.Content;
// req.Prompt only counts towards the reported input tokens.
func (m *Model) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return globalsearch.ModelResponse{}, err
	}
	var (
		text     string
		complete bool
		err      error
	)
	switch req.Stage {
	case globalsearch.StageMap:
		text, complete, err = mapAnswer(req.Query, req.Parts, req.MaxTokens)
	case globalsearch.StageReduce:
		text, complete, err = reduceAnswer(req.Candidates, layoutOf(req.ResponseType), req.MaxTokens)
	case globalsearch.StageRate:
		text, complete, err = rateAnswer(req.Query, req.Parts, req.MaxTokens)
	default:
		return globalsearch.ModelResponse{}, fmt.Errorf("offline model: unknown stage %q", req.Stage)
	}
	if err != nil {
		return globalsearch.ModelResponse{}, fmt.Errorf("offline model: %w", err)
	}
	// A caller that gave up while we worked must not receive an answer it
	// may already have retried.
	if err := ctx.Err(); err != nil {
		return globalsearch.ModelResponse{}, err
	}
	in := req.Prompt
	if in == "" {
		in = req.Content
	}
	resp := globalsearch.ModelResponse{
		Text:         text,
		InputTokens:  tokens.Estimate(in),
		OutputTokens: tokens.Estimate(text),
		StopReason:   stopEndTurn,
	}
	if !complete {
		resp.StopReason = stopMaxTokens
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"offline model stopped at maxTokens %d: the %s output reserve was too small for its answer",
			req.MaxTokens, req.Stage)
	}
	return resp, nil
}

type mapOutput struct {
	Answer     string `json:"answer"`
	Usefulness int    `json:"usefulness"`
}

type reduceOutput struct {
	Answer string `json:"answer"`
}

// mapAnswer implements the map stage (see the package comment).
func mapAnswer(query string, parts []globalsearch.MapPart, maxTokens int) (string, bool, error) {
	q := readQuestion(query)
	sents := batchSentences(parts)
	if !asksAboutBoilerplate(q) {
		sents = withoutBoilerplate(sents, boilerplateTitles(parts))
	}
	var best []sentence
	usefulness := 0
	if len(q.content) > 0 {
		// Whole sentences first, fragments only when they alone match. A
		// global question reads the communities' own account (summaries
		// and claims) before their source excerpts, whose lines of
		// dialogue answer no question about the whole.
		tiers := [][]sentence{keep(sents, func(s sentence) bool { return s.whole }), sents}
		if q.global {
			tiers = slices.Insert(tiers, 0, keep(sents, func(s sentence) bool { return s.whole && s.section != sectionExcerpts }))
		}
		for _, tier := range tiers {
			if best, usefulness = rank(q.content, tier); usefulness > 0 {
				break
			}
		}
	}
	if usefulness == 0 && q.global {
		most := float64(globalMax)
		if len(q.content) > 0 {
			most = fallbackMax
		}
		best, usefulness = globalAnswer(q, sents, most)
	}
	if usefulness == 0 {
		return fit(maxTokens, nil, oneParagraph, func(answer string) any { return mapOutput{Answer: answer} })
	}
	units := make([]unit, len(best))
	for i, s := range best {
		units[i] = unit{text: withMark(s.text, []string{s.community})}
	}
	return fit(maxTokens, units, oneParagraph, func(answer string) any {
		return mapOutput{Answer: answer, Usefulness: usefulness}
	})
}

// keep is the sentences for which ok holds.
func keep(sents []sentence, ok func(sentence) bool) []sentence {
	return slices.DeleteFunc(slices.Clone(sents), func(s sentence) bool { return !ok(s) })
}

// withMark is s followed by the mark citing ids (docs/contract.md#citations),
// or s alone when it rests on no community.
func withMark(s string, ids []string) string {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "" })
	if len(ids) == 0 {
		return s
	}
	return s + " " + globalsearch.CitationMark(ids)
}

// rank scores sents against the query terms with BM25, the sentences being
// the documents, and returns the best sentences (best first) and the
// usefulness of the batch.
func rank(query []string, sents []sentence) ([]sentence, int) {
	q := uniq(query)
	if len(q) == 0 || len(sents) == 0 {
		return nil, 0
	}
	tf := make([]map[string]int, len(sents))
	df := map[string]int{}
	totalLen := 0
	for i, s := range sents {
		ts := terms(s.text)
		totalLen += len(ts)
		tf[i] = map[string]int{}
		for _, t := range ts {
			tf[i][t]++
		}
		for _, t := range q {
			if tf[i][t] > 0 {
				df[t]++
			}
		}
	}
	n := float64(len(sents))
	avgLen := math.Max(float64(totalLen)/n, 1)
	idf := map[string]float64{}
	matchedIDF := 0.0
	for _, t := range q {
		if df[t] > 0 {
			idf[t] = math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			matchedIDF += idf[t]
		}
	}
	if len(idf) == 0 {
		return nil, 0
	}
	var all []scored
	for i, s := range sents {
		dl := 0
		for _, c := range tf[i] {
			dl += c
		}
		score := 0.0
		for _, t := range q { // in query order, so that the sum is the same on every run
			if f := float64(tf[i][t]); f > 0 {
				score += idf[t] * f * (k1 + 1) / (f + k1*(1-b+b*float64(dl)/avgLen))
			}
		}
		if score > 0 {
			all = append(all, scored{sentence: s, score: score})
		}
	}
	// Best first; equal scores keep batch order, so the output is the same
	// on every run.
	slices.SortStableFunc(all, func(x, y scored) int { return cmp.Compare(y.score, x.score) })

	top := all[0].score
	var best []sentence
	var said sentenceSet
	for _, s := range all {
		if len(best) == mapSentences || s.score < mapFloor*top {
			break
		}
		if said.add(s.text) {
			best = append(best, s.sentence)
		}
	}

	// Coverage: the share of the question's terms this batch speaks to.
	// Strength: the best sentence against one that holds every matched term
	// once at average length (which scores matchedIDF). Both must be high
	// for a high score, and any match scores at least 1, so that 0 keeps
	// its docs/contract.md#prompts meaning of "nothing relevant".
	coverage := float64(len(idf)) / float64(len(q))
	strength := math.Min(top/matchedIDF, 1)
	u := int(math.Round(100 * coverage * (0.4 + 0.6*strength)))
	return best, min(max(u, 1), 100)
}

// scored is a sentence with its BM25 score.
type scored struct {
	sentence
	score float64
}

func termSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range terms(s) {
		set[t] = true
	}
	return set
}

// nearDuplicate returns the first set taken that set overlaps by at least
// 80% (Jaccard), -1 for none: map answers from neighbouring communities
// often quote the same claim with different punctuation or a chunk id.
func nearDuplicate(set map[string]bool, taken []map[string]bool) int {
	if len(set) == 0 {
		return -1
	}
	for i, o := range taken {
		inter := 0
		for t := range set {
			if o[t] {
				inter++
			}
		}
		if union := len(set) + len(o) - inter; union > 0 && float64(inter)/float64(union) >= 0.8 {
			return i
		}
	}
	return -1
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
