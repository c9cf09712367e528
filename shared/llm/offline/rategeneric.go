package offline

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Rating a generic question (docs/contract.md#dynamic-selection): one that
// asks about the corpus as a whole names no word a short form could hold
// ("What are the main themes?"), so rating by the question's words would
// find every community irrelevant and select nothing. A model rater judges
// the communities that stand for the whole relevant instead; the offline
// model does so from what the short forms show: how central a community
// is among those it rates with (it names the entities most of them name,
// and its words are typical of theirs) and how much it speaks to the
// question's aspect (aspectCues). The most central of each rating batch
// pass the threshold, so selection descends into their subtrees only.

// A generic rating ranks the communities of a batch by weight
// (genericWeights): the best ⌈√n⌉ of n score MaxRating down to
// genericPassScore, evenly by rank, and the others 1, judged of some use
// to a question about the whole, so that a threshold of 1 still descends
// everywhere. √n keeps a few of a small batch and a small share of a
// large one: 5 of Christmas Carol's 23 roots.
const genericPassScore = 2

// genericRatings scores every community of parts for generic question q,
// 0 to MaxRating, in the order of their first part. A community with no
// text scores 0.
func genericRatings(q question, parts []globalsearch.MapPart) []rating {
	var sents []sentence
	for _, p := range parts {
		sents, _ = appendText(sents, p, sectionOther)
	}
	// One pseudo-sentence per community: its whole short form.
	at := map[string]int{}
	var texts []*strings.Builder
	for _, s := range sents {
		if _, ok := at[s.community]; !ok {
			at[s.community] = len(texts)
			texts = append(texts, &strings.Builder{})
		}
		texts[at[s.community]].WriteString(s.text + " ")
	}
	forms := make([]genericSentence, len(texts))
	for i, b := range texts {
		forms[i] = genericSentence{sentence: sentence{text: b.String()}, terms: termSet(b.String())}
	}
	weights := genericWeights(q.aspect, forms, centralNames(sents))
	byRank := make([]int, len(weights))
	for i := range byRank {
		byRank[i] = i
	}
	// Heaviest first; equal weights keep batch order, so that a batch is
	// rated the same on every run.
	slices.SortStableFunc(byRank, func(x, y int) int { return cmp.Compare(weights[y], weights[x]) })
	pass := int(math.Ceil(math.Sqrt(float64(len(weights)))))
	scores := make([]int, len(weights))
	for r, i := range byRank {
		scores[i] = 1
		if r < pass {
			scores[i] = globalsearch.MaxRating
			if pass > 1 {
				scores[i] -= int(math.Round(float64(r*(globalsearch.MaxRating-genericPassScore)) / float64(pass-1)))
			}
		}
	}
	out := make([]rating, 0, len(parts))
	rated := map[string]bool{}
	for _, p := range parts {
		if rated[p.CommunityID] {
			continue
		}
		rated[p.CommunityID] = true
		score := 0
		if i, ok := at[p.CommunityID]; ok {
			score = scores[i]
		}
		out = append(out, rating{ID: p.CommunityID, Score: score})
	}
	return out
}

// genericWeights weighs each short form: the central names it holds
// (centralNames, at most 2 names' worth), how typical of the batch its
// words are (centroid) and, but for an overview, how much it speaks to
// aspect a (cues), each 0 to 1.
func genericWeights(a aspect, forms []genericSentence, names map[string]float64) []float64 {
	typical := centroid(forms)
	out := make([]float64, len(forms))
	for i, f := range forms {
		named := 0.0
		for n := range nameSet(f.text) {
			named += names[n]
		}
		out[i] = math.Min(named, 2)/2 + typical[i]
		if a != aspectOverview {
			out[i] += strength(cues(f.terms, a, nil))
		}
	}
	return out
}
