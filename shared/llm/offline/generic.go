package offline

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Generic questions (docs/contract.md#offline-model) name nothing a
// sentence could match ("What is this corpus about?", "What are the main
// conflicts?"), so they are answered from the batch's most central
// communities. What they ask for differs all the same, and so does what
// leads their answers: each asks about one aspect of the whole, and the
// sentences that speak to it come first.

// aspect is what a generic question asks about the corpus as a whole.
type aspect int

const (
	// aspectOverview: what the corpus is about. Its sentences are the
	// batch's most typical (centroid).
	aspectOverview aspect = iota
	// aspectConflict: opposition and struggle.
	aspectConflict
	// aspectPeople: the central entities and how they relate.
	aspectPeople
	// aspectTheme: themes, morals, messages.
	aspectTheme
)

// questionAspects are the (stemmed) question words that name an aspect;
// the first of a question's terms that names one decides.
var questionAspects = func() map[string]aspect {
	m := map[string]aspect{}
	for a, words := range map[aspect]string{
		aspectConflict: `conflict struggle tension opposition rivalry antagonist`,
		aspectPeople:   `people person character figure protagonist individual player entity relate relation relationship`,
		aspectTheme:    `theme motif moral lesson message idea meaning`,
	} {
		for w := range strings.FieldsSeq(words) {
			m[stem(w)] = a
		}
	}
	return m
}()

// asksWho matches a question that starts "Who": a generic one asks about
// the people of the corpus.
var asksWho = regexp.MustCompile(`(?i)^\W*who\b`)

// aspectOf is the aspect query asks about, given its terms.
func aspectOf(query string, terms []string) aspect {
	for _, t := range terms {
		if a, ok := questionAspects[t]; ok {
			return a
		}
	}
	if asksWho.MatchString(query) {
		return aspectPeople
	}
	return aspectOverview
}

// aspectCues are the prefixes (or, ended by "$", the whole words) of the
// (lower-case, stemmed) words by which a sentence speaks to an aspect, in any corpus: conflict by the words of
// opposition and struggle, people by the words of kinship and work that
// relate them (beside the names it holds: centralNames), themes by the
// words that name one.
var aspectCues = map[aspect][]string{
	aspectConflict: {"conflict", "struggl", "oppos", "fight", "battl", "tension", "rival", "enem",
		"threat", "resist", "disput", "clash", "confront", "hostil", "fear", "danger", "protest", "strike",
		"quarrel", "argu", "antagon", "defian", "torment", "suffer", "hardship", "contest", "challeng",
		"oppress", "injustic", "cruel", "dilemma", "crisis"},
	aspectPeople: {"relationship", "relation", "nephew", "niece", "uncle", "aunt", "father", "mother",
		"daughter", "brother", "sister", "wife", "husband", "famil", "partner$", "clerk", "employ", "friend",
		"servant", "mentor", "ally", "allie", "colleague", "lover", "children", "parent", "fianc"},
	aspectTheme: {"theme", "motif", "moral", "lesson", "messag", "symbol", "meaning", "idea", "valu", "explor"},
}

// cues weighs the distinct terms of a sentence that the question asked (2
// each: its own words are the best evidence) or that speak to aspect a by
// aspectCues (1 each).
func cues(ts map[string]bool, a aspect, asked map[string]bool) float64 {
	n := 0.0
	for t := range ts {
		switch {
		case asked[t]:
			n += 2
		case slices.ContainsFunc(aspectCues[a], func(p string) bool { return cueMatches(t, p) }):
			n++
		}
	}
	return n
}

// cueMatches reports whether term t is cue p (see aspectCues).
func cueMatches(t, p string) bool {
	if whole, ok := strings.CutSuffix(p, "$"); ok {
		return t == whole
	}
	return strings.HasPrefix(t, p)
}

// metaWords are the words of a report about its own data ("This community
// centers on...", "the entities within this network"): they describe the
// index, not the corpus, so they make no sentence typical.
var metaWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`community entity network report center centre centered centred
		interconnected relationship highlight`) {
		m[stem(w)] = true
	}
	return m
}()

// metaOpening matches a sentence that opens by naming the report's data
// rather than the corpus, or that speaks of "these entities": it leads an
// answer only where nothing else does.
var metaOpening = regexp.MustCompile(`(?i)^\W*(this|the|these|its)\s+(community|communities|network|entities|report)\b|\b(this|these)\s+(community|network|entities)\b`)

// genericSentence is a sentence a generic answer may quote, with its
// terms and its score for the question's aspect.
type genericSentence struct {
	sentence
	terms map[string]bool
	// topic: the first sentence of its community's summary, which states
	// what the community is about.
	topic bool
	score float64
}

// scoreGeneric scores each sentence for aspect a. An overview takes the
// sentences most typical of the batch (centroid), its communities' topic
// sentences first. The other aspects take the sentences that use the
// question's words and the aspect's cues (cues), people also by the
// central names they hold (centralNames), typicality only breaking ties;
// a sentence that speaks of the report's own data ("This community centers
// on...", "these entities") counts half.
func scoreGeneric(pool []genericSentence, a aspect, asked map[string]bool, all []sentence) {
	typical := centroid(pool)
	var names map[string]float64
	if a == aspectPeople {
		names = centralNames(all)
	}
	for i := range pool {
		s := &pool[i]
		score := cues(s.terms, a, asked)
		switch a {
		case aspectOverview:
			score += typical[i]
			if s.topic {
				score += 0.5
			}
		case aspectPeople:
			named := 0.0
			for n := range nameSet(s.text) {
				named += names[n]
			}
			score += 0.5*math.Min(named, 2) + 0.25*typical[i]
		default:
			score += 0.25 * typical[i]
		}
		if a != aspectOverview && metaOpening.MatchString(s.text) {
			score /= 2
		}
		s.score = score
	}
}

// strength maps a score (0 and up) onto 0 to 1, half at 1: how well a
// sentence speaks to the question's aspect.
func strength(score float64) float64 { return score / (score + 1) }

// centroid scores each sentence by how typical of the pool its words are,
// from 0 to 1 (the most typical): the sum over its distinct terms of the
// term's weight in the pool (the sentences using it, times its inverse
// sentence frequency, so that a word of every sentence counts little),
// over the square root of its number of terms, so that length alone does
// not win.
func centroid(pool []genericSentence) []float64 {
	df := map[string]int{}
	for _, s := range pool {
		for t := range s.terms {
			if !metaWords[t] {
				df[t]++
			}
		}
	}
	n := float64(len(pool))
	out := make([]float64, len(pool))
	top := 0.0
	for i, s := range pool {
		sum := 0.0
		for t := range s.terms {
			if d := float64(df[t]); d > 0 {
				sum += d * math.Log(1+n/d)
			}
		}
		out[i] = sum / math.Sqrt(float64(max(len(s.terms), 1)))
		top = max(top, out[i])
	}
	for i := range out {
		if top > 0 {
			out[i] /= top
		}
	}
	return out
}

// centralNames weighs the names of a batch (nameSet) by the share of its
// communities that name them, the most named weighing 1: the entities
// every part of the batch speaks of are its central ones.
func centralNames(sents []sentence) map[string]float64 {
	by := map[string]map[string]bool{}
	for _, s := range sents {
		for n := range nameSet(s.text) {
			if by[n] == nil {
				by[n] = map[string]bool{}
			}
			by[n][s.community] = true
		}
	}
	top := 0
	for _, cs := range by {
		top = max(top, len(cs))
	}
	w := make(map[string]float64, len(by))
	for n, cs := range by {
		w[n] = float64(len(cs)) / float64(top)
	}
	return w
}

// nameSet is the names of s: its capitalised words other than its first
// (which any sentence capitalises) and other than stopwords and the
// report's own words, lower-case and stemmed as terms are.
func nameSet(s string) map[string]bool {
	set := map[string]bool{}
	first := true
	for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if first {
			first = false
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) || utf8.RuneCountInString(w) < 2 {
			continue
		}
		lower := strings.ToLower(w)
		if t := stem(lower); !stopwords[lower] && !metaWords[t] {
			set[t] = true
		}
	}
	return set
}

// bestFirst sorts sentences by score, best first; equal scores keep batch
// order, so that the answer is the same on every run.
func bestFirst(ss []genericSentence) {
	slices.SortStableFunc(ss, func(x, y genericSentence) int { return cmp.Compare(y.score, x.score) })
}
