package globalsearch

import (
	_ "embed"
	"encoding/json"
	"math"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

//go:embed prompts/rate.txt
var ratePromptText string

// StageRate is the rating call of dynamic selection (docs/contract.md#dynamic-selection).
const StageRate Stage = "rate"

// MaxRating is the top of the rating scale: a community is rated 0 to 5.
const MaxRating = 5

// RatingAttempts is how many times a rating batch is tried, as a map batch is.
const RatingAttempts = MapAttempts

// ratePrompt is the embedded rating prompt, held to the rules of a map
// prompt (docs/contract.md#data-safe-prompts): the community data between
// <community_data> lines, the query before it.
var ratePrompt = sync.OnceValue(func() Template {
	t, err := ParseTemplate(ratePromptText)
	if err != nil {
		panic(err) // TestRatePromptIsDataSafe covers the embedded file
	}
	return t
})

// RatePromptSkeleton is the rating prompt for query without content, the
// skeleton rating batches are packed against.
func RatePromptSkeleton(query string) string { return ratePrompt().Skeleton(query) }

// ratingPromptFits is the budget check of docs/contract.md#budgets for
// the rating prompt of a dynamic selection: its rating batches are packed
// under the map prompt budget, so the rating skeleton must fit it too.
func ratingPromptFits(p Params) error {
	if p.Selection != SelectionDynamic {
		return nil
	}
	if err := batch.CheckSkeleton(RatePromptSkeleton(p.Query), p.MapPromptBudget()); err != nil {
		need := batch.SmallestBudget(RatePromptSkeleton(p.Query)) + p.MapOutputReserve
		return Errorf(KindInvalidInput,
			"map token budget cannot fit the rating prompt: mapTokenBudget must be at least %d for this query with selection \"dynamic\" (the rating prompt takes %d tokens before any content, plus mapOutputReserve %d)",
			need, need-p.MapOutputReserve, p.MapOutputReserve)
	}
	return nil
}

// rateRequest is the rating call of a batch of community titles and
// summaries.
func rateRequest(query, content string, maxTokens int) ModelRequest {
	prompt, prefix := ratePrompt().render(query, content)
	return ModelRequest{Stage: StageRate, Query: query, Content: content,
		Prompt: prompt, CachePrefix: prefix, Parts: MapParts(content), MaxTokens: maxTokens}
}

// Ratings is a validated rating reply (docs/contract.md#dynamic-selection):
// the score of every id of the batch the reply rated, and how many ids it
// rated that the batch does not hold, which are ignored.
type Ratings struct {
	Scores  map[string]float64
	Unknown int
}

// ParseRatingOutput validates a rating reply against the ids its batch
// holds: a JSON object whose "ratings" array holds objects, each an "id"
// string and a "score" number from 0 to 5. An id of the batch the reply
// leaves out is not rated; an id outside the batch is counted and ignored;
// an id rated twice keeps its higher score.
func ParseRatingOutput(text string, ids []string) (Ratings, error) {
	v, err := ExtractJSON(text)
	if err != nil {
		return Ratings{}, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return Ratings{}, outputError("rating output must be a JSON object")
	}
	list, ok := obj["ratings"].([]any)
	if !ok {
		return Ratings{}, outputError("rating output must contain a ratings array")
	}
	inBatch := make(map[string]bool, len(ids))
	for _, id := range ids {
		inBatch[id] = true
	}
	r := Ratings{Scores: map[string]float64{}}
	for _, item := range list {
		id, score, err := parseRating(item)
		if err != nil {
			return Ratings{}, err
		}
		if !inBatch[id] {
			r.Unknown++
			continue
		}
		if old, seen := r.Scores[id]; !seen || score > old {
			r.Scores[id] = score
		}
	}
	return r, nil
}

func parseRating(item any) (string, float64, error) {
	obj, ok := item.(map[string]any)
	if !ok {
		return "", 0, outputError("each rating must be a JSON object with id and score")
	}
	id, ok := obj["id"].(string)
	if !ok {
		return "", 0, outputError("each rating must have a string id")
	}
	num, ok := obj["score"].(json.Number)
	if !ok {
		return "", 0, outputError("each rating must have a number score from 0 to 5")
	}
	s, err := num.Float64()
	if err != nil || math.IsNaN(s) || math.IsInf(s, 0) || s < 0 || s > MaxRating {
		return "", 0, outputError("each rating must have a number score from 0 to 5")
	}
	return id, s, nil
}

// ratingSchema is the schema of a rating reply (StageOutputSchema).
func ratingSchema() OutputSchema {
	item := closedObject(map[string]any{
		"id":    map[string]any{"type": "string"},
		"score": map[string]any{"type": "number", "description": "0 to 5: how likely the community helps answer the question."},
	})
	return OutputSchema{
		Name:        "community_ratings",
		Description: "A score for each community of the batch: how likely it helps answer the question.",
		Schema:      closedObject(map[string]any{"ratings": map[string]any{"type": "array", "items": item}}),
	}
}
