package offline

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Global questions: those that ask about the corpus as a whole ("What is
// this story about?", "What are the top themes?", "Who are the main
// characters?") name no topic that a sentence could match. Their words
// are genre words, or the question ends "about?"; the rest of a
// question's terms are its content terms.

// genreWords are the (stemmed) words that ask about a corpus as a whole
// rather than name what to look for in it.
var genreWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`arc article book central change character collection conflict core
		corpus dataset develop document event evolve figure function gist happen idea issue lesson message
		moral narrative novel overview part pattern people person play plot point protagonist purpose role
		significance story subject summary tale text theme topic trend`) {
		m[stem(w)] = true
	}
	return m
}()

// frameWords are the genre words that frame a question rather than say
// what it is about ("the central conflict", "the role of", "this story"):
// a sentence that happens to use them ("central to the story") answers
// nothing, so they never rank sentences.
var frameWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`article book central collection core corpus dataset document function
		narrative novel part point purpose role significance story tale text`) {
		m[stem(w)] = true
	}
	return m
}()

// question is a query as the offline model reads it.
type question struct {
	terms   []string // every term (see terms), each once
	content []string // the terms that are not genre words
	// global: the question uses a genre word, so it asks about the corpus
	// as a whole when its content terms match little.
	global bool
}

// asksWhatAbout matches a question that ends "... about?" ("What is this
// about?"): it asks for the topic of the whole, though "about" is a
// stopword that must match no sentence.
var asksWhatAbout = regexp.MustCompile(`(?i)\babout\W*$`)

func readQuestion(query string) question {
	q := question{terms: uniq(terms(query)), global: asksWhatAbout.MatchString(query)}
	for _, t := range q.terms {
		if genreWords[t] {
			q.global = true
		} else {
			q.content = append(q.content, t)
		}
	}
	return q
}

// Usefulness of an answer from centrality alone: at most globalMax, so
// that any batch whose sentences match the question's content terms well
// outranks it (usefulness follows match strength), and at most fallbackMax
// where the batch matched none of the content terms the question has.
const (
	globalMax   = 50
	fallbackMax = 20
	// halfCentrality is the centrality that earns half of the maximum: a
	// middling GraphRAG rank (0-10), or a community of five leaves.
	halfCentrality = 5.0
	// globalCommunities is how many of a batch's communities a global
	// answer quotes, the most central first, one sentence each before a
	// second: breadth over depth.
	globalCommunities = 3
	// minGlobalTerms is the fewest terms a sentence of a global answer
	// has: a line such as "Governance." or "Then more." says nothing of
	// the whole.
	minGlobalTerms = 3
)

// globalAnswer answers a global question from the batch's most central
// communities (docs/contract.md#centrality): their summary sentences (a
// claim's when the summary has none), boilerplate already left out. A
// community that uses the question's words ("themes", "conflict"; not its
// frameWords) counts
// half as central again, and within the answer, and within each
// community, the sentences that use them come first. most bounds the
// usefulness (globalMax or fallbackMax), which a match raises.
func globalAnswer(q question, sents []sentence, most float64) ([]sentence, int) {
	asked := map[string]bool{}
	for _, t := range q.terms {
		asked[t] = !frameWords[t]
	}
	byCommunity, order := globalSentences(sents, asked)
	if len(order) == 0 {
		return nil, 0
	}
	weight := func(c string) float64 {
		first := byCommunity[c][0]
		return first.centrality * (1 + 0.5*float64(min(matches(first.text, asked), 1)))
	}
	// Heaviest first; equal weight keeps batch order.
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(weight(b), weight(a)) })
	order = order[:min(len(order), globalCommunities)]
	var best []sentence
	var said sentenceSet
	for round := 0; len(best) < mapSentences; round++ {
		took := false
		for _, c := range order {
			if round < len(byCommunity[c]) && len(best) < mapSentences {
				took = true
				if s := byCommunity[c][round]; said.add(s.text) {
					best = append(best, s)
				}
			}
		}
		if !took {
			break
		}
	}
	slices.SortStableFunc(best, func(x, y sentence) int { return cmp.Compare(matches(y.text, asked), matches(x.text, asked)) })
	top := byCommunity[order[0]][0].centrality
	share := 0.8
	if matches(best[0].text, asked) > 0 {
		share = 1
	}
	u := int(math.Round(share * most * top / (top + halfCentrality)))
	return best, min(int(most), u+1) // any answer scores at least 1
}

// globalSentences are the sentences a global answer may quote, by
// community, each community's that use the question's words first, and the
// communities in batch order.
func globalSentences(sents []sentence, asked map[string]bool) (map[string][]sentence, []string) {
	hasSummary := map[string]bool{}
	for _, s := range sents {
		if s.whole && s.section == sectionSummary {
			hasSummary[s.community] = true
		}
	}
	byCommunity := map[string][]sentence{}
	var order []string
	for _, s := range sents {
		if !s.whole || !(s.section == sectionSummary || s.section == sectionClaims && !hasSummary[s.community]) ||
			len(terms(s.text)) < minGlobalTerms {
			continue
		}
		if _, ok := byCommunity[s.community]; !ok {
			order = append(order, s.community)
		}
		byCommunity[s.community] = append(byCommunity[s.community], s)
	}
	for _, c := range order {
		slices.SortStableFunc(byCommunity[c], func(x, y sentence) int {
			return cmp.Compare(matches(y.text, asked), matches(x.text, asked))
		})
	}
	return byCommunity, order
}

// matches counts the distinct terms of s that the question asked.
func matches(s string, asked map[string]bool) int {
	n := 0
	for t := range termSet(s) {
		if asked[t] {
			n++
		}
	}
	return n
}

// Boilerplate (docs/contract.md#offline-model): the text that comes with a
// corpus rather than in it, such as the licence, copyright and donation
// terms a digital library adds to every book it distributes. It is found
// by its vocabulary: a sentence is boilerplate when its words of licensing
// and distribution weigh at least boilerplateWeight (a word of licensing
// weighs 2, a word of distribution 1, each distinct word once), so that no
// one word ("licences" of a fishery, "donations" for the poor) makes it,
// and a community is when its title is (the Markdown heading an import puts
// at the head of a summary: a report titled after a licence or a foundation
// is about the distribution, whatever its sentences say) or when at least
// half of its sentences are; all of its sentences are then left out.
const boilerplateWeight = 3

// licensingStems and distributionStems are prefixes of the (lower-case)
// words of licensing and of distribution.
var (
	licensingStems = []string{
		"copyright", "licen", "trademark", "royalt", "warrant", "liabilit", "disclaim", "indemn",
		"ebook", "redistribut",
	}
	distributionStems = []string{
		"distribut", "donat", "donor", "deductib", "nonprofit", "charit", "permission", "jurisdiction",
		"complian", "legal", "electronic", "volunteer", "archive", "foundation", "tax",
	}
)

// boilerplateTermWeight is the weight of one term (see boilerplateWeight).
func boilerplateTermWeight(t string) int {
	for _, p := range licensingStems {
		if strings.HasPrefix(t, p) {
			return 2
		}
	}
	for _, p := range distributionStems {
		if strings.HasPrefix(t, p) {
			return 1
		}
	}
	return 0
}

// boilerplateSentence reports whether s is boilerplate.
func boilerplateSentence(s string) bool {
	w := 0
	for t := range termSet(s) {
		w += boilerplateTermWeight(t)
	}
	return w >= boilerplateWeight
}

// boilerplateTitles are the communities of parts whose title (a Markdown
// heading of their text) is boilerplate.
func boilerplateTitles(parts []globalsearch.MapPart) map[string]bool {
	titled := map[string]bool{}
	for _, p := range parts {
		for line := range strings.Lines(p.Text) {
			if line = strings.TrimSpace(line); isHeading(line) && boilerplateSentence(strings.TrimLeft(line, "# ")) {
				titled[p.CommunityID] = true
			}
		}
	}
	return titled
}

// withoutBoilerplate drops the boilerplate sentences of a batch, and every
// sentence of a community whose title or whose sentences are boilerplate.
func withoutBoilerplate(sents []sentence, titled map[string]bool) []sentence {
	total, bad := map[string]int{}, map[string]int{}
	isBad := make([]bool, len(sents))
	for i, s := range sents {
		total[s.community]++
		if isBad[i] = boilerplateSentence(s.text); isBad[i] {
			bad[s.community]++
		}
	}
	out := sents[:0:0]
	for i, s := range sents {
		if !isBad[i] && !titled[s.community] && 2*bad[s.community] < total[s.community] {
			out = append(out, s)
		}
	}
	return out
}

// asksAboutBoilerplate reports whether the question itself asks about
// licensing or distribution: then that text is what it wants.
func asksAboutBoilerplate(q question) bool {
	return slices.ContainsFunc(q.terms, func(t string) bool { return boilerplateTermWeight(t) > 0 })
}
