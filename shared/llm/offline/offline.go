// Package offline is the in-process twin of the model adapters: a
// deterministic, extractive heuristic that needs no network. It is a
// heuristic for demos and tests, not an LLM: it does not read, reason or
// write; it quotes.
//
// Map: the batch content is split into sentences (header lines, titles and
// bullet markup dropped, hard-wrapped lines joined), each sentence is scored
// against the query with BM25, and the best few sentences become the answer.
// Only whole sentences are quoted; fragments (a text cut mid-sentence) are
// used only when no whole sentence matches. Usefulness grows with the share
// of query terms the batch contains and with how strongly the best sentence
// matches; it is exactly 0, with an empty answer, when no query term occurs.
//
// Reduce: the candidate answers are merged sentence by sentence, taking the
// first sentence of each candidate (highest usefulness first), then the
// second of each, and so on, never repeating a sentence or a fragment of one
// (sentenceSet), so that the final answer covers many communities instead of
// repeating the top one.
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
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

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
	// reduceSentences caps the merged answer.
	reduceSentences = 12
)

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
		text, complete, err = reduceAnswer(req.Candidates, req.MaxTokens)
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
	whole, fragments := partSentences(parts)
	best, usefulness := rank(terms(query), whole)
	if usefulness == 0 && len(fragments) > 0 {
		best, usefulness = rank(terms(query), append(whole, fragments...))
	}
	if usefulness == 0 {
		return fit(maxTokens, nil, func(answer string) any { return mapOutput{Answer: answer} })
	}
	return fit(maxTokens, best, func(answer string) any {
		return mapOutput{Answer: answer, Usefulness: usefulness}
	})
}

// scored is a sentence with its BM25 score and its position in the batch.
type scored struct {
	text  string
	score float64
	pos   int
}

// rank scores sents against the query terms with BM25, the sentences being
// the documents, and returns the best sentences (best first) and the
// usefulness of the batch.
func rank(query []string, sents []string) ([]string, int) {
	q := uniq(query)
	if len(q) == 0 || len(sents) == 0 {
		return nil, 0
	}
	tf := make([]map[string]int, len(sents))
	df := map[string]int{}
	totalLen := 0
	for i, s := range sents {
		ts := terms(s)
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
		for t, w := range idf {
			if f := float64(tf[i][t]); f > 0 {
				score += w * f * (k1 + 1) / (f + k1*(1-b+b*float64(dl)/avgLen))
			}
		}
		if score > 0 {
			all = append(all, scored{text: s, score: score, pos: i})
		}
	}
	// Best first; equal scores keep batch order, so the output is the same
	// on every run.
	slices.SortStableFunc(all, func(x, y scored) int { return cmp.Compare(y.score, x.score) })

	top := all[0].score
	var best []string
	var said sentenceSet
	for _, s := range all {
		if len(best) == mapSentences || s.score < mapFloor*top {
			break
		}
		if said.add(s.text) {
			best = append(best, s.text)
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

type candidate struct {
	usefulness float64
	// whole and fragments are its sentences (see sentences).
	whole, fragments []string
	// mark cites the candidate's communities (docs/contract.md#citations), as the reduce
	// prompt asks every model to.
	mark string
}

// reduceAnswer implements the reduce stage (see the package comment).
func reduceAnswer(given []globalsearch.Candidate, maxTokens int) (string, bool, error) {
	cands := make([]candidate, len(given))
	for i, c := range given {
		cands[i].usefulness = c.Usefulness
		cands[i].whole, cands[i].fragments = sentences(c.Answer)
		if len(c.CommunityIDs) > 0 {
			cands[i].mark = " " + globalsearch.CitationMark(c.CommunityIDs)
		}
	}
	slices.SortStableFunc(cands, func(x, y candidate) int { return cmp.Compare(y.usefulness, x.usefulness) })

	merged := merge(cands, func(c candidate) []string { return c.whole })
	if len(merged) == 0 {
		// A map answer cut short to fit its reserve is all there is: a
		// fragment answers better than nothing.
		merged = merge(cands, func(c candidate) []string { return c.fragments })
	}
	return fit(maxTokens, merged, func(answer string) any { return reduceOutput{Answer: answer} })
}

// merge takes the first sentence of each candidate, then the second of each,
// and so on, up to reduceSentences, skipping what the answer already says.
func merge(cands []candidate, sentencesOf func(candidate) []string) []string {
	var merged []string
	var said sentenceSet
	for round := 0; len(merged) < reduceSentences; round++ {
		took := false
		for _, c := range cands {
			sents := sentencesOf(c)
			if round >= len(sents) || len(merged) == reduceSentences {
				continue
			}
			took = true
			if said.add(sents[round]) {
				merged = append(merged, sents[round]+c.mark)
			}
		}
		if !took {
			break
		}
	}
	return merged
}

// fit renders as many of sents (in order) as fit maxTokens. If not even the
// first fits, its longest prefix that fits is used, ended with "…". When no
// valid output fits at all, it returns the output cut off at maxTokens, as a
// model's output is when it reaches its limit, and complete is false.
func fit(maxTokens int, sents []string, render func(answer string) any) (out string, complete bool, err error) {
	fits := func(s string) bool { return maxTokens <= 0 || tokens.Estimate(s) <= maxTokens }
	if out, err = encode(render("")); err != nil {
		return "", false, err
	}
	if len(sents) == 0 {
		if fits(out) {
			return out, true, nil
		}
		return cut(out, maxTokens), false, nil
	}
	answer := ""
	for _, s := range sents {
		next := s
		if answer != "" {
			next = answer + " " + s
		}
		o, err := encode(render(next))
		if err != nil {
			return "", false, err
		}
		if !fits(o) {
			break
		}
		answer, out = next, o
	}
	if answer != "" {
		return out, true, nil
	}
	// The best sentence alone is too long: keep its longest prefix that fits.
	first := []rune(sents[0])
	render1 := func(n int) (string, error) { return encode(render(string(first[:n]) + "…")) }
	if o, err := render1(1); err != nil || !fits(o) {
		full, err := encode(render(sents[0]))
		if err != nil {
			return "", false, err
		}
		return cut(full, maxTokens), false, nil
	}
	lo, hi := 1, len(first) // invariant: a prefix of lo runes fits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		o, err := render1(mid)
		if err != nil {
			return "", false, err
		}
		if fits(o) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	out, err = render1(lo)
	return out, err == nil, err
}

// encode is json.Marshal without HTML escaping, so that "&" and "<" in
// summaries stay readable and cost what they look like.
func encode(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// cut returns the longest prefix of s (whole code points) whose estimate is
// within maxTokens, as a model's output is when it reaches its limit.
func cut(s string, maxTokens int) string {
	var c tokens.Count
	for i, r := range s {
		// An invalid byte decodes as U+FFFD and counts as non-ASCII, as in
		// tokens.Of.
		if r < utf8.RuneSelf {
			c.ASCII++
		} else {
			c.NonASCII++
		}
		if c.Tokens() > maxTokens {
			return s[:i]
		}
	}
	return s
}

func termSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range terms(s) {
		set[t] = true
	}
	return set
}

// nearDuplicate reports whether set overlaps one already taken by at least
// 80% (Jaccard): map answers from neighbouring communities often quote the
// same claim with different punctuation or a chunk id.
func nearDuplicate(set map[string]bool, taken []map[string]bool) bool {
	if len(set) == 0 {
		return false
	}
	for _, o := range taken {
		inter := 0
		for t := range set {
			if o[t] {
				inter++
			}
		}
		if union := len(set) + len(o) - inter; union > 0 && float64(inter)/float64(union) >= 0.8 {
			return true
		}
	}
	return false
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
