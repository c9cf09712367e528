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
	for w := range strings.FieldsSeq(`antagonist arc article book central change character collection
		conflict core corpus dataset develop document entity event evolve figure function gist happen idea
		individual issue lesson meaning message moral motif narrative novel opposition overview part pattern
		people person play player plot point protagonist purpose relate relation relationship rivalry role
		significance story struggle subject summary tale tension text theme topic trend`) {
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
		narrative novel part point purpose relate role significance story tale text`) {
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
	// aspect is what a global question asks of the whole (aspectOf).
	aspect aspect
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
	q.aspect = aspectOf(query, q.terms)
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
// claim's when the summary has none), boilerplate already left out, scored
// for the question's aspect (scoreGeneric). A community counts as central
// as its centrality, and up to twice that as its best sentence speaks to
// the aspect, so that different questions lead with different material
// where the batch has it; within the answer, and within each community,
// the best sentences come first. most bounds the usefulness (globalMax or
// fallbackMax), which a sentence that speaks to the aspect raises.
func globalAnswer(q question, sents []sentence, most float64) ([]sentence, int) {
	asked := map[string]bool{}
	for _, t := range q.terms {
		// "people" and "characters" frame a question about people: the
		// sentences that use the words say nothing of who they are.
		asked[t] = !frameWords[t] && !(q.aspect == aspectPeople && questionAspects[t] == aspectPeople)
	}
	pool := genericPool(sents)
	if len(pool) == 0 {
		return nil, 0
	}
	scoreGeneric(pool, q.aspect, asked, sents)
	bestFirst(pool)
	byCommunity := map[string][]genericSentence{}
	var order []string
	for _, s := range pool {
		if _, ok := byCommunity[s.community]; !ok {
			order = append(order, s.community)
		}
		byCommunity[s.community] = append(byCommunity[s.community], s)
	}
	weight := func(s genericSentence) float64 { return s.centrality * (1 + strength(s.score)) }
	// Heaviest first; equal weight keeps the order of their best sentences.
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(weight(byCommunity[b][0]), weight(byCommunity[a][0])) })
	order = order[:min(len(order), globalCommunities)]
	var best []genericSentence
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
	slices.SortStableFunc(best, func(x, y genericSentence) int { return cmp.Compare(weight(y), weight(x)) })
	// Half the lead's centrality, half how well it speaks to the aspect, so
	// that of two batches the one with the better lead leads the answer.
	lead := best[0]
	u := int(math.Round(most * (0.5*lead.centrality/(lead.centrality+halfCentrality) + 0.5*strength(lead.score))))
	out := make([]sentence, len(best))
	for i, s := range best {
		out[i] = s.sentence
	}
	return out, min(int(most), u+1) // any answer scores at least 1
}

// genericPool is the sentences a global answer may quote: the whole
// sentences of at least minGlobalTerms terms of each community's summary,
// or of its claims where it has no summary, in batch order.
func genericPool(sents []sentence) []genericSentence {
	hasSummary := map[string]bool{}
	for _, s := range sents {
		if s.whole && s.section == sectionSummary {
			hasSummary[s.community] = true
		}
	}
	var pool []genericSentence
	topicSaid := map[string]bool{}
	for _, s := range sents {
		if !s.whole || !(s.section == sectionSummary || s.section == sectionClaims && !hasSummary[s.community]) {
			continue
		}
		if ts := termSet(s.text); len(ts) >= minGlobalTerms {
			topic := s.section == sectionSummary && !topicSaid[s.community]
			topicSaid[s.community] = true
			pool = append(pool, genericSentence{sentence: s, terms: ts, topic: topic})
		}
	}
	return pool
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
