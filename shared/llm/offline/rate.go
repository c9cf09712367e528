package offline

import (
	"math"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

type rating struct {
	ID    string `json:"id"`
	Score int    `json:"score"`
}

type ratingOutput struct {
	Ratings []rating `json:"ratings"`
}

// rateAnswer implements the rating stage of dynamic selection
// (docs/contract.md#dynamic-selection) by the evidence the map stage
// answers from: each community's text is scored against the query as a
// map batch of that text alone would be (rank), and its usefulness of 0 to
// 100 becomes a score of 0 to 5, rounded, any match at least 1, so that 0
// keeps its meaning of "no query term occurs". Rounded, not raised: one
// word of a four-word question (often the protagonist's name, in every
// community) scores 1, below the default threshold, as a rater that knows
// the collection would judge it. A community split over parts is rated by
// its best part.
func rateAnswer(query string, parts []globalsearch.MapPart, maxTokens int) (string, bool, error) {
	out := ratingOutput{Ratings: []rating{}}
	if g := readQuestion(query); g.global && len(g.content) == 0 {
		out.Ratings = append(out.Ratings, genericRatings(g, parts)...)
		return encodeRatings(out, maxTokens)
	}
	q := terms(query)
	at := map[string]int{}
	for _, p := range parts {
		in := sectionOther
		if p.Part > 1 {
			in = sectionSummary
		}
		sents, _ := appendText(nil, p, in)
		_, usefulness := rank(q, sents)
		score := 0
		if usefulness > 0 {
			score = max(int(math.Round(float64(usefulness)*globalsearch.MaxRating/100)), 1)
		}
		if i, seen := at[p.CommunityID]; seen {
			out.Ratings[i].Score = max(out.Ratings[i].Score, score)
			continue
		}
		at[p.CommunityID] = len(out.Ratings)
		out.Ratings = append(out.Ratings, rating{ID: p.CommunityID, Score: score})
	}
	return encodeRatings(out, maxTokens)
}

// encodeRatings is out as the reply, cut to maxTokens when over it.
func encodeRatings(out ratingOutput, maxTokens int) (string, bool, error) {
	text, err := encode(out)
	if err != nil {
		return "", false, err
	}
	if maxTokens > 0 && tokens.Estimate(text) > maxTokens {
		return cut(text, maxTokens), false, nil
	}
	return text, true, nil
}
