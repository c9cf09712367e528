package globalsearch

import "time"

// Batch is one map batch of a plan (docs/contract.md#batching). EstimatedTokens is the
// estimate of the whole Map prompt: skeleton + "\n" + Content. RunID is the
// run of the plan that holds the batch, so a map task that reads a batch
// knows which run its answer belongs to (docs/contract.md#query-ids).
type Batch struct {
	RunID           string   `json:"runId,omitempty"`
	Index           int      `json:"index"`
	CommunityIDs    []string `json:"communityIds"`
	EstimatedTokens int      `json:"estimatedTokens"`
	Content         string   `json:"content"`
	// Sources are the claims and chunks of each community in the batch
	// (docs/contract.md#result), kept with the batch rather than the plan item so that
	// no item outgrows DynamoDB's 400 KB.
	Sources []Sources `json:"sources,omitempty"`
}

// Plan is what prepare decided: the request, every batch, and what was
// noticed about the index on the way. RunID names this plan's run: each
// prepare of a query id starts a new run, and the answers, reduce calls and
// result of a run are kept apart from every other run of that id
// (docs/contract.md#query-ids). A dry run (Engine.Plan) has none.
type Plan struct {
	RunID string `json:"runId,omitempty"`
	// Owner is the execution that started the run (docs/contract.md#query-ids):
	// saving the plan makes it the owner of the id's result.
	Owner        string  `json:"owner,omitempty"`
	Params       Params  `json:"request"`
	SummaryCount int     `json:"summaryCount"`
	Batches      []Batch `json:"batches"`
	IndexNotes
	CreatedAt time.Time `json:"createdAt"`
}

// IndexNotes is what prepare noticed about the index on the way
// (docs/contract.md#diagnostics): the plan keeps it, and the plan output
// and the plan item embed it, so each note is declared once. Its fields
// flatten into the JSON of whatever embeds it.
type IndexNotes struct {
	OrphanClaims    int   `json:"orphanClaims"`
	MissingChunks   int   `json:"missingChunks"`
	AvailableLevels []int `json:"availableLevels,omitempty"`
	// EmptyNamespace says the namespace holds no summary at all, which
	// usually means a misspelt namespace or an index never ingested.
	EmptyNamespace      bool     `json:"emptyNamespace,omitempty"`
	AvailableNamespaces []string `json:"availableNamespaces,omitempty"`
}

// MapAnswer is a valid map output of one batch (docs/contract.md#model-output). Attempts counts
// the model calls it took, the successful one included; Cached says the
// answer came from the map cache (docs/contract.md#map-cache), and then Attempts counts only
// the failed calls before the hit.
type MapAnswer struct {
	BatchIndex   int      `json:"batchIndex"`
	CommunityIDs []string `json:"communityIds"`
	Answer       string   `json:"answer"`
	Usefulness   float64  `json:"usefulness"`
	Attempts     int      `json:"attempts"`
	Cached       bool     `json:"cached,omitempty"`
	InputTokens  int      `json:"inputTokens"`
	OutputTokens int      `json:"outputTokens"`
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
)

// NoResultsAnswer is the answer of every no_results run (docs/contract.md#result).
const NoResultsAnswer = "No relevant community summaries were found for this query."

// SelectedAnswer is a map answer that reduce selected (docs/contract.md#reduce).
type SelectedAnswer struct {
	Answer       string   `json:"answer"`
	Usefulness   float64  `json:"usefulness"`
	CommunityIDs []string `json:"communityIds"`
}

// BatchSummary describes one batch in the diagnostics.
type BatchSummary struct {
	CommunityIDs    []string `json:"communityIds"`
	EstimatedTokens int      `json:"estimatedTokens"`
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
	StartedAt           time.Time      `json:"startedAt"`
	FinishedAt          time.Time      `json:"finishedAt"`

	EmptyNamespace      bool     `json:"emptyNamespace,omitempty"`
	AvailableNamespaces []string `json:"availableNamespaces,omitempty"`
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
