package globalsearch

import "context"

// RatingBatch is one rating call of a round of a run's dynamic selection
// (docs/contract.md#dynamic-selection): the communities it rates and the
// text the call sees of them. Rounds count from 1 (the roots); Index from 0
// within its round.
type RatingBatch struct {
	Round        int      `json:"round"`
	Index        int      `json:"index"`
	CommunityIDs []string `json:"communityIds"`
	Content      string   `json:"content"`
}

// Rating is what the attempts at one rating batch got. An attempt adds its
// call and tokens; the one that succeeded sets Rated, Scores and
// UnknownIDs, one that failed sets Error. A batch no attempt rated leaves
// its communities not rated.
type Rating struct {
	Round        int                `json:"round"`
	BatchIndex   int                `json:"batchIndex"`
	Rated        bool               `json:"rated"`
	Scores       map[string]float64 `json:"scores,omitempty"`
	UnknownIDs   int                `json:"unknownIds,omitempty"`
	Calls        int                `json:"calls"`
	InputTokens  int                `json:"inputTokens,omitempty"`
	OutputTokens int                `json:"outputTokens,omitempty"`
	Error        string             `json:"error,omitempty"`
	// ErrorKind is Error's kind, so that a run the failed ratings end
	// fails as the calls did.
	ErrorKind Kind `json:"errorKind,omitempty"`
}

// MaxRatingRound and MaxRatingBatchIndex bound what the runs store keys
// (three and six digits keep sort-key order the order of rounds and
// batches).
const (
	MaxRatingRound      = 999
	MaxRatingBatchIndex = 999_999
)

// Selections keeps the rating batches and ratings of a run's dynamic
// selection, keyed by run like its map batches and answers, so that a step
// of one run never reads or writes another's (docs/contract.md#query-ids).
// Every item expires with its run.
type Selections interface {
	// SaveRatingBatches stores the rating batches of one round of run
	// runID; saving a round again overwrites it.
	SaveRatingBatches(ctx context.Context, queryID, runID string, batches []RatingBatch) error
	// RatingBatch returns one rating batch of run runID, or ErrNotFound,
	// also when runID is no longer the query id's current run (its last
	// plan saved), as Plans.Batch reads only the current run's.
	RatingBatch(ctx context.Context, queryID, runID string, round, index int) (RatingBatch, error)
	// AddRating records one attempt at a rating batch: its Calls and
	// tokens are added to the batch's, and Rated, Scores and UnknownIDs
	// (when r.Rated) or Error and ErrorKind (when Error is set) replace
	// the batch's.
	AddRating(ctx context.Context, queryID, runID string, r Rating) error
	// Ratings returns the ratings of every round of run runID, by round
	// and then batch index.
	Ratings(ctx context.Context, queryID, runID string) ([]Rating, error)
}

// CheckRatingKey refuses a round or batch index the runs stores cannot key.
func CheckRatingKey(queryID string, round, index int) error {
	if queryID == "" {
		return Errorf(KindInvalidInput, "queryId must not be empty")
	}
	if round < 1 || round > MaxRatingRound || index < 0 || index > MaxRatingBatchIndex {
		return Errorf(KindInvalidInput, "rating batch %d of round %d of query %s: round must be 1 to %d and index 0 to %d",
			index, round, queryID, MaxRatingRound, MaxRatingBatchIndex)
	}
	return nil
}
