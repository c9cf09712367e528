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
	// ASCIICodePoints and NonASCIICodePoints count the map prompt that
	// EstimatedTokens measures, so reduce reports them without the content
	// (docs/contract.md#usage). A plan stored before they were has neither.
	ASCIICodePoints    int `json:"asciiCodePoints,omitempty"`
	NonASCIICodePoints int `json:"nonAsciiCodePoints,omitempty"`
	// Sources are the claims and chunks of each community in the batch
	// (docs/contract.md#result), kept with the batch rather than the plan item so that
	// no item outgrows DynamoDB's 400 KB.
	Sources []Sources `json:"sources,omitempty"`
	// Centrality is how central each community of the batch is to its
	// namespace (docs/contract.md#centrality), for the map call's parts:
	// prepare knows the hierarchy, the map step only its batch.
	Centrality map[string]float64 `json:"centrality,omitempty"`
	// TextHashes are the content hashes of the communities whose first
	// part the batch holds, for a standing question's record
	// (docs/contract.md#standing-questions); none for other runs.
	TextHashes []CommunityHash `json:"textHashes,omitempty"`
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
	// Coverage is what the map input holds (docs/contract.md#coverage);
	// the plan item keeps it, so reduce reports it without reading the index.
	Coverage  Coverage  `json:"coverage"`
	CreatedAt time.Time `json:"createdAt"`
	// PlannedAt is when prepare had built the plan, just before it saved
	// it, as CreatedAt is when the run started (prepare's start, before any
	// read or rating call); a plan stored before it was recorded has none
	// (docs/contract.md#timeline).
	PlannedAt time.Time `json:"plannedAt,omitzero"`
	// Changes is what changed since the previous run of the request's
	// standing question (docs/contract.md#standing-questions), compared
	// once, when the run is planned.
	Changes *Changes `json:"changes,omitempty"`
	// Selection is what dynamic selection rated and chose, kept with the
	// plan so that reduce reports it (docs/contract.md#dynamic-selection);
	// nil for a selection by level, so that the plan item holds nothing of it.
	Selection *SelectionReport `json:"selection,omitempty"`
	// AutoLevel is what communityLevel "auto" chose (docs/contract.md#auto-level);
	// the plan item keeps it, so the result reports it.
	AutoLevel *LevelChoice `json:"autoLevel,omitempty"`
	// GraphRAGLevel is what communityLevel "graphrag:N" selected
	// (docs/contract.md#graphrag-level); nil for any other level.
	GraphRAGLevel *LevelSplit `json:"graphragLevel,omitempty"`
	// MapConcurrency is the most map calls the run has in flight, and
	// ETASeconds how long its model calls are expected to take
	// (docs/contract.md#quota): the plan item keeps both, so the result
	// reports them. A plan stored before they were has neither.
	MapConcurrency int `json:"mapConcurrency,omitempty"`
	ETASeconds     int `json:"etaSeconds,omitempty"`
	// MapSkeleton is the map prompt without content that the batches were
	// packed against (docs/contract.md#batching), as the engine's prompts
	// render it. It is not stored: map calls render their own.
	MapSkeleton string `json:"-"`
	// IndexVersion is the namespace version a dynamic selection started on
	// (VersionedSnapshot): its later steps read that version only
	// (docs/contract.md#selection-steps). Empty for any other plan.
	IndexVersion string `json:"indexVersion,omitempty"`
	// SeedDerivation is where the seed of a run under seedPolicy
	// "namespace" came from (docs/contract.md#seed-policy); nil when the
	// request's seed stood. The plan item keeps it, so the result reports it.
	SeedDerivation *SeedDerivation `json:"seedDerivation,omitempty"`
	// Continues saves the plan of a run that is already the query id's
	// current run, as a dynamic selection's plan follows its rating rounds
	// (docs/contract.md#selection-steps). The save is refused (KindNotFound)
	// unless the current run is still RunID, so the steps of an earlier run
	// never replace a later prepare of the same request. Not stored.
	Continues bool `json:"-"`
}

// MapInputTokens is the estimated tokens of every map prompt of the plan.
func (p Plan) MapInputTokens() int {
	total := 0
	for _, b := range p.Batches {
		total += b.EstimatedTokens
	}
	return total
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
