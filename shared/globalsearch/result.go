package globalsearch

import "time"

// MapAnswer is a valid map output of one batch (docs/contract.md#model-output). Attempts counts
// the model calls it took, the successful one included; Cached says the
// answer came from the map cache (docs/contract.md#map-cache), and then Attempts counts only
// the failed calls before the hit.
type MapAnswer struct {
	BatchIndex   int      `json:"batchIndex"`
	CommunityIDs []string `json:"communityIds"`
	Answer       string   `json:"answer"`
	// CitedCommunityIDs are the ids the answer's marks name, all of them in
	// the batch (CiteWithin); DroppedCitations counts the ids its marks
	// named that were not. An answer stored before either was recorded has
	// neither, and reduce shows it with the batch's ids.
	CitedCommunityIDs []string `json:"citedCommunityIds,omitempty"`
	DroppedCitations  int      `json:"droppedCitations,omitempty"`
	Usefulness        float64  `json:"usefulness"`
	Attempts          int      `json:"attempts"`
	Cached            bool     `json:"cached,omitempty"`
	InputTokens       int      `json:"inputTokens"`
	OutputTokens      int      `json:"outputTokens"`
	// CacheReadInputTokens and CacheWriteInputTokens are the part of
	// InputTokens the model's prompt cache read and wrote
	// (docs/contract.md#prompt-cache).
	CacheReadInputTokens  int `json:"cacheReadInputTokens,omitempty"`
	CacheWriteInputTokens int `json:"cacheWriteInputTokens,omitempty"`
	// CalledAt is when the model call that answered started (none for a
	// cached answer), AnsweredAt when the answer was ready; an answer
	// stored before either was recorded has neither (docs/contract.md#timeline).
	CalledAt   time.Time `json:"calledAt,omitzero"`
	AnsweredAt time.Time `json:"answeredAt,omitzero"`
}

// Status is the outcome of a run (docs/contract.md#result).
type Status string

// The statuses of docs/contract.md#result, and running for a run with no result yet.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
	StatusPartial   Status = "partial"
	StatusNoResults Status = "no_results"
	StatusFailed    Status = "failed"
	// StatusCancelled is a run a caller stopped before it saved a result
	// (docs/contract.md#cancel).
	StatusCancelled Status = "cancelled"
)

// NoResultsAnswer is the answer of every no_results run (docs/contract.md#result).
const NoResultsAnswer = "No relevant community summaries were found for this query."

// SelectedAnswer is a map answer that reduce selected (docs/contract.md#reduce).
type SelectedAnswer struct {
	Answer       string   `json:"answer"`
	Usefulness   float64  `json:"usefulness"`
	CommunityIDs []string `json:"communityIds"`
	// CitedCommunityIDs are the ids the answer cites, which its reduce
	// header named (docs/contract.md#reduce-selection).
	CitedCommunityIDs []string `json:"citedCommunityIds,omitempty"`
}

// BatchSummary describes one batch in the diagnostics. The code points are
// those of its map prompt, and ReportedInputTokens what the model reported
// for the call that answered it, absent for a failed or cached batch
// (docs/contract.md#usage).
type BatchSummary struct {
	CommunityIDs        []string `json:"communityIds"`
	EstimatedTokens     int      `json:"estimatedTokens"`
	ASCIICodePoints     int      `json:"asciiCodePoints,omitempty"`
	NonASCIICodePoints  int      `json:"nonAsciiCodePoints,omitempty"`
	ReportedInputTokens int      `json:"reportedInputTokens,omitempty"`
}

// MapScore is the usefulness one batch scored.
type MapScore struct {
	BatchIndex int     `json:"batchIndex"`
	Usefulness float64 `json:"usefulness"`
}

// StageUsage is what one stage cost, as the model reported it. CacheHits
// counts the answers the map cache served without a model call
// (docs/contract.md#map-cache); reduce answers are never cached.
type StageUsage struct {
	ModelCalls   int `json:"modelCalls"`
	CacheHits    int `json:"cacheHits"`
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	// CacheReadInputTokens and CacheWriteInputTokens are the part of
	// InputTokens the model read from its prompt cache and wrote to it
	// (docs/contract.md#prompt-cache): read tokens are billed at a tenth,
	// written ones above the input price.
	CacheReadInputTokens  int `json:"cacheReadInputTokens,omitempty"`
	CacheWriteInputTokens int `json:"cacheWriteInputTokens,omitempty"`
	// PromptCache is the prompt cache the stage's calls ran with (off,
	// 5m or 1h), which prices the written tokens; absent when the model
	// takes no cache point.
	PromptCache string `json:"promptCache,omitempty"`
	// PromptCacheNote says why PromptCache is not what the run asked
	// for: a model that caches no prompts, or none for an hour.
	PromptCacheNote string `json:"promptCacheNote,omitempty"`
	// ServiceTier is the service tier the stage's calls asked for
	// (docs/contract.md#service-tiers), and ServiceTierNote why the run's
	// tier was not sent: a model without tiers.
	ServiceTier     string `json:"serviceTier,omitempty"`
	ServiceTierNote string `json:"serviceTierNote,omitempty"`
	// DroppedCitations (map only) counts the ids map answers cited that
	// were not in their batch (docs/contract.md#citation-marks); reduce's
	// counterpart is Diagnostics.InvalidCitations.
	DroppedCitations int `json:"droppedCitations,omitempty"`
	// AutoConcurrency (map only) is what the adaptive limit did in a run
	// of an in-process Search with AutoConcurrency
	// (docs/contract.md#auto-concurrency); absent at a fixed limit.
	AutoConcurrency *AutoConcurrencyReport `json:"autoConcurrency,omitempty"`
	// Rounds (reduce only) is how many reduce rounds ran, the final call
	// counting as one (docs/contract.md#reduce-rounds): 1 for a reduce
	// whose one prompt held every answer, 0 when no reduce call was made.
	Rounds int `json:"rounds,omitempty"`
	// PerRound (reduce only) is each round's groups, calls and tokens
	// when there was more than the final call; absent otherwise.
	PerRound []ReduceRoundUsage `json:"perRound,omitempty"`
}

// Diagnostics are the signals of a run (docs/contract.md#result).
type Diagnostics struct {
	SummaryCount        int            `json:"summaryCount"`
	BatchCount          int            `json:"batchCount"`
	Batches             []BatchSummary `json:"batches"`
	MapScores           []MapScore     `json:"mapScores"`
	SelectedAnswerCount int            `json:"selectedAnswerCount"`
	ReducePromptTokens  int            `json:"reducePromptTokens"`
	ShuffleSeed         int64          `json:"shuffleSeed"`
	ModelCalls          int            `json:"modelCalls"`
	InputTokens         int            `json:"inputTokens"`
	OutputTokens        int            `json:"outputTokens"`
	Map                 StageUsage     `json:"map"`
	Reduce              StageUsage     `json:"reduce"`
	OrphanClaims        int            `json:"orphanClaims"`
	MissingChunks       int            `json:"missingChunks"`
	AvailableLevels     []int          `json:"availableLevels,omitempty"`
	InvalidCitations    int            `json:"invalidCitations"`
	Coverage            Coverage       `json:"coverage"`
	Changes             *Changes       `json:"changes,omitempty"`
	Usage               Usage          `json:"usage"`
	StartedAt           time.Time      `json:"startedAt"`
	FinishedAt          time.Time      `json:"finishedAt"`
	// Timeline is how long each stage took (docs/contract.md#timeline);
	// absent only from a result stored before it was recorded.
	Timeline Timeline `json:"timeline,omitzero"`
	// MapConcurrency and ETASeconds are what prepare planned
	// (docs/contract.md#quota): the most map calls in flight, and how long
	// the model calls were expected to take, beside StartedAt and
	// FinishedAt; absent for a plan stored before they were.
	MapConcurrency int `json:"mapConcurrency,omitempty"`
	ETASeconds     int `json:"etaSeconds,omitempty"`
	// SeedPolicy is the request's seedPolicy when it is "namespace", and
	// SeedDerivation where its seed came from when prepare derived it
	// (docs/contract.md#seed-policy): absent, the seed is the request's, or
	// one drawn for it at random.
	SeedPolicy     string          `json:"seedPolicy,omitempty"`
	SeedDerivation *SeedDerivation `json:"seedDerivation,omitempty"`

	EmptyNamespace      bool     `json:"emptyNamespace,omitempty"`
	AvailableNamespaces []string `json:"availableNamespaces,omitempty"`
	// Selection is what dynamic selection rated and chose
	// (docs/contract.md#dynamic-selection); absent otherwise.
	Selection SelectionReport `json:"selection,omitzero"`
	// AutoLevel is what communityLevel "auto" chose and from which
	// candidates (docs/contract.md#auto-level); absent for a fixed level.
	AutoLevel *LevelChoice `json:"autoLevel,omitempty"`
	// Cost is what the models' reported tokens cost per stage at the
	// engine's prices (docs/contract.md#cost); absent without prices.
	Cost *StageCost `json:"cost,omitempty"`
	// Notes are what the models said of how they were called, each naming
	// its model: a structured-output fallback (docs/contract.md#structured-output).
	Notes []string `json:"notes,omitempty"`
}

// Result is the outcome of a run (docs/contract.md#result).
type Result struct {
	QueryID            string           `json:"queryId"`
	Namespace          string           `json:"namespace"`
	Query              string           `json:"query"`
	CommunityLevel     Level            `json:"communityLevel"`
	Status             Status           `json:"status"`
	Answer             string           `json:"answer"`
	Error              string           `json:"error,omitempty"`
	SelectedMapAnswers []SelectedAnswer `json:"selectedMapAnswers"`
	FailedMapBatches   int              `json:"failedMapBatches"`
	MapErrors          []BatchFailure   `json:"mapErrors"`
	Citations          []Citation       `json:"citations"`
	Diagnostics        Diagnostics      `json:"diagnostics"`
}
