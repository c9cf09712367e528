package globalsearch

import (
	"context"
	"time"
)

// Index opens the namespaces of an index for reading.
type Index interface {
	// Open resolves the version of a namespace once, so that every read
	// of the snapshot is of that one version (docs/contract.md#namespace-versions).
	// A namespace that does not exist opens as empty, not as an error.
	Open(ctx context.Context, namespace string) (Snapshot, error)
}

// Snapshot reads one version of one namespace.
type Snapshot interface {
	Summaries(ctx context.Context) ([]Summary, error)
	Claims(ctx context.Context) ([]Claim, error)
	// Chunks returns the chunks among ids that exist, in any order; ids that
	// do not exist are simply absent from the answer.
	Chunks(ctx context.Context, ids []string) ([]Chunk, error)
	// Intact reports whether what the snapshot read is its whole version:
	// false once the namespace was replaced after Open, since the store
	// then deletes the version a late read may still be reading.
	Intact(ctx context.Context) (bool, error)
}

// VersionedSnapshot is a Snapshot that names the version it reads. A search
// read in several steps (a dynamic selection on AWS) records it when it
// starts, so that every later step reads that version or fails
// (docs/contract.md#selection-steps); a store without it pins nothing.
type VersionedSnapshot interface {
	Version() string
}

// NamespaceLister is an Index that can also list the namespaces that hold
// records, in one cheap read. Prepare asks it only when the namespace of a
// request is empty, to say which namespaces exist; an Index without it
// simply leaves that list out.
type NamespaceLister interface {
	Namespaces(ctx context.Context) ([]string, error)
}

// Stage names the step a model call serves.
type Stage string

// The two stages that call a model.
const (
	StageMap    Stage = "map"
	StageReduce Stage = "reduce"
)

// ModelRequest is one model call. Prompt is the rendered prompt (docs/contract.md#prompts);
// Query and Content are what it was rendered from. Candidates are the reduce
// call's content in parts, so a model that builds its own answer (the
// offline model) never reads back the text the prompt format wrote.
type ModelRequest struct {
	Stage   Stage
	Query   string
	Content string
	Prompt  string
	// CachePrefix is how many bytes at the start of Prompt are the same
	// for every question over this content: the instructions and the
	// data, up to the line holding the question. An adapter that caches
	// prompts puts its cache point there (docs/contract.md#prompt-cache);
	// 0 when the prompt's question comes before the data.
	CachePrefix int
	// System is the system instruction sent before Prompt (the engine's
	// prompts'); "" is the project's own. Models read it through
	// SystemPrompt.
	System     string
	Parts      []MapPart   // map only: the batch's parts, in prompt order
	Candidates []Candidate // reduce only: the selected map answers, in prompt order
	// ResponseType is the form of answer the reduce prompt asks for
	// (docs/contract.md#request), reduce only.
	ResponseType string
	MaxTokens    int
	// PromptCache is the run's promptCache (docs/contract.md#prompt-cache),
	// which a Model that caches honours over its own default; "" leaves
	// the Model's.
	PromptCache string
	// ServiceTier is the stage's service tier (docs/contract.md#service-tiers),
	// sent by a Model that has tiers (ServiceTierTaker); "" sends none.
	ServiceTier string
}

// SystemPrompt is the system instruction to send with r: r.System, else the
// project's own (docs/contract.md#custom-prompts).
func (r ModelRequest) SystemPrompt() string {
	if r.System == "" {
		return SystemPrompt
	}
	return r.System
}

// MapPart is one part of a map batch (docs/contract.md#batching): a community summary, or a
// piece of one split to fit, with its claims and excerpts as the prompt
// shows them. Part counts from 1; a later part continues the text of the
// one before, so its first sentence may be cut.
type MapPart struct {
	CommunityID string
	Part        int
	Text        string
	// Centrality is how central the community is to its namespace
	// (docs/contract.md#centrality); it is not in the prompt text.
	Centrality float64
}

// Candidate is one map answer as the reduce prompt shows it (docs/contract.md#reduce-selection):
// its score, the communities its answer cites (its batch's when it cites
// none) and its answer with forged headers neutralised (NeutraliseHeaders).
type Candidate struct {
	Usefulness   float64  `json:"usefulness"`
	CommunityIDs []string `json:"communityIds"`
	Answer       string   `json:"answer"`
}

// ModelResponse is the text a model produced and the usage it reported.
type ModelResponse struct {
	Text string
	// InputTokens is every input token of the call, cached or not.
	InputTokens  int
	OutputTokens int
	StopReason   string
	// CacheReadInputTokens and CacheWriteInputTokens are the part of
	// InputTokens the model read from its prompt cache and wrote to it
	// (docs/contract.md#prompt-cache); 0 where the model reports none.
	CacheReadInputTokens  int
	CacheWriteInputTokens int
}

// Model makes one model call: one attempt, no retry of its own beyond
// transport-level retries (docs/contract.md#map-calls).
type Model interface {
	Complete(ctx context.Context, req ModelRequest) (ModelResponse, error)
}

// PromptCacher is a Model that puts a cache point at
// ModelRequest.CachePrefix (docs/contract.md#prompt-cache): PromptCache is
// the setting its calls run with when a request asks for want (off, 5m or
// 1h; "" for the Model's default) and, when that is not the one asked
// for, why.
type PromptCacher interface {
	PromptCache(want string) (setting, note string)
}

// Requests records the request of a run before it starts, so that a caller
// who repeats a start gets the same run back (docs/contract.md#idempotency), and so
// that a query id names one request (docs/contract.md#query-ids).
type Requests interface {
	// CreateRequest stores p unless a request with the same query id exists.
	// It returns the stored request and whether this call created it. A
	// request it creates supersedes whatever result the id had (Result is
	// ErrNotFound until a run of this request saves one), and owner ("" for
	// the query id) is the execution that owns the result until a plan is
	// saved: the one whose state machine may record its failure
	// (docs/contract.md#query-ids). Callers claim an id through
	// ClaimRequest, which refuses a different request as a conflict.
	CreateRequest(ctx context.Context, p Params, owner string) (Params, bool, error)
	// Request returns the stored request or ErrNotFound.
	Request(ctx context.Context, queryID string) (Params, error)
}

// Plans stores the plan of a run: its request and every batch. Saving a
// plan for a query id starts its run Plan.RunID: it replaces the previous
// plan and its batches, removes the previous result (Result is ErrNotFound
// until this run saves one) and leaves nothing of an earlier run that this
// run can read.
type Plans interface {
	// SavePlan makes p's run the query id's current run; a query id whose
	// result is cancelled is refused (KindNotFound), docs/contract.md#cancel,
	// and so is a plan that Continues a run no longer current.
	SavePlan(ctx context.Context, p Plan) error
	// Plan returns the plan with every batch (content included), or ErrNotFound.
	Plan(ctx context.Context, queryID string) (Plan, error)
	// PlanMeta returns the plan as Plan does but with every batch's
	// Content empty: what reduce needs, at a fraction of the read.
	PlanMeta(ctx context.Context, queryID string) (Plan, error)
	// Batch returns one batch of the current plan, RunID set, or ErrNotFound.
	Batch(ctx context.Context, queryID string, index int) (Batch, error)
}

// Answers stores map answers by (query id, run id, batch index): saving an
// answer for the same batch of the same run again overwrites it, and the
// answers of one run are never read as another's, so a map task of an
// earlier plan that saves late cannot reach the current run.
type Answers interface {
	SaveMapAnswer(ctx context.Context, queryID, runID string, a MapAnswer) error
	// MapAnswers returns the stored answers of a run ordered by batch index.
	MapAnswers(ctx context.Context, queryID, runID string) ([]MapAnswer, error)
}

// MapAttempt is the tally of one map batch's attempts that reached the
// model and were not saved as its answer (docs/contract.md#failed-attempts):
// an answer that broke the output rules or failed to save, a call that
// failed. Each adds its call and the tokens the model reported (none for a
// call that failed), so that what they cost is counted although no answer
// holds it.
type MapAttempt struct {
	BatchIndex            int `json:"batchIndex"`
	Calls                 int `json:"calls"`
	InputTokens           int `json:"inputTokens,omitempty"`
	OutputTokens          int `json:"outputTokens,omitempty"`
	CacheReadInputTokens  int `json:"cacheReadInputTokens,omitempty"`
	CacheWriteInputTokens int `json:"cacheWriteInputTokens,omitempty"`
}

// MaxBatchIndex bounds the batch index the runs stores key (six digits
// keep sort-key order the order of batches).
const MaxBatchIndex = 999_999

// MapAttemptTallies keeps the tallies of the map attempts no answer holds,
// keyed by run like the answers, so that a run never reads another's
// (docs/contract.md#query-ids). Every item expires with its run.
type MapAttemptTallies interface {
	// AddMapAttempt adds a's calls and tokens to its batch's tally.
	AddMapAttempt(ctx context.Context, queryID, runID string, a MapAttempt) error
	// MapAttempts returns the tallies of run runID by batch index.
	MapAttempts(ctx context.Context, queryID, runID string) ([]MapAttempt, error)
}

// CheckMapAttemptKey refuses a batch index the runs stores cannot key.
func CheckMapAttemptKey(queryID string, index int) error {
	if queryID == "" {
		return Errorf(KindInvalidInput, "queryId must not be empty")
	}
	if index < 0 || index > MaxBatchIndex {
		return Errorf(KindInvalidInput, "map attempt at batch %d of query %s: index must be 0 to %d", index, queryID, MaxBatchIndex)
	}
	return nil
}

// MapProgress is how far the map stage of a query id's current run has
// got (docs/contract.md#progress): batches answered, batches recorded as
// failed, and the plan's batch count.
type MapProgress struct {
	Done   int `json:"done"`
	Failed int `json:"failed"`
	Total  int `json:"total"`
}

// Progress reads the map progress of a query id's current run; ErrNotFound
// when the query has no plan yet.
type Progress interface {
	MapProgress(ctx context.Context, queryID string) (MapProgress, error)
}

// Cancels records that a caller stopped a run (docs/contract.md#cancel).
type Cancels interface {
	// CancelResult saves r (status cancelled) as the query id's result
	// while the result item is owned by owner and holds no final result,
	// and ends the run, so that none of its steps can save a result
	// after it. A query id whose run already has a final result is a
	// KindConflict error; one with no result item, or owned by another
	// execution, is ErrNotFound.
	CancelResult(ctx context.Context, r Result, owner string) error
}

// Results stores the result of a run; saving again overwrites it.
type Results interface {
	// SaveResult stores r. With a runID it stores r only while runID is the
	// query id's current run (the last plan saved, and no failure recorded
	// since), else it returns an error of KindNotFound: a reduce of an
	// earlier plan never overwrites a newer run's result. With runID ""
	// it stores r unless the id's result is cancelled (prepare recording a
	// failure of the request it owns) and the runs before it can no longer
	// save theirs. A cancelled result is never overwritten: that save is
	// an error of KindNotFound too (docs/contract.md#cancel).
	SaveResult(ctx context.Context, r Result, runID string) error
	// Result returns the stored result or ErrNotFound.
	Result(ctx context.Context, queryID string) (Result, error)
}

// ReduceCalls counts the reduce model calls of a run across invocations.
// On AWS each reduce attempt is its own Lambda invocation, and
// $$.State.RetryCount also counts Lambda-service retries that never reached
// the handler, so the exact count has to live with the run. Each run counts
// from 0.
type ReduceCalls interface {
	// AddReduceCall records one more reduce model call of a run and
	// returns the count so far.
	AddReduceCall(ctx context.Context, queryID, runID string) (int, error)
	// ReduceCalls returns the count so far: 0 when there were none.
	ReduceCalls(ctx context.Context, queryID, runID string) (int, error)
}

// ReduceGroup is one group of a round of a tree reduce
// (docs/contract.md#reduce-rounds): the candidates its intermediate call
// reads, in rank order, and how many map answers they hold. Rounds count
// from 1, Index from 0 within its round.
type ReduceGroup struct {
	Round      int         `json:"round"`
	Index      int         `json:"index"`
	Candidates []Candidate `json:"candidates"`
	// AnswerCount is how many map answers the candidates rest on.
	AnswerCount int `json:"answerCount"`
}

// GroupAnswer is what the attempts at one reduce group got. An attempt
// adds its calls and tokens (counted before the call, so a call that fails
// still counts); the one that succeeded sets Done, Answer, Usefulness,
// CitedCommunityIDs and InvalidCitations, one that failed sets Error.
type GroupAnswer struct {
	Round int  `json:"round"`
	Index int  `json:"index"`
	Done  bool `json:"done"`
	// Answer is the intermediate answer, its marks held to the ids its
	// group's candidates name; Usefulness is its score for the next
	// round (the highest of its group's, docs/contract.md#reduce-rounds).
	Answer            string   `json:"answer,omitempty"`
	Usefulness        float64  `json:"usefulness,omitempty"`
	CitedCommunityIDs []string `json:"citedCommunityIds,omitempty"`
	// InvalidCitations counts the ids the answer cited that its group
	// never saw (dropped from its marks).
	InvalidCitations int    `json:"invalidCitations,omitempty"`
	Calls            int    `json:"calls"`
	InputTokens      int    `json:"inputTokens,omitempty"`
	OutputTokens     int    `json:"outputTokens,omitempty"`
	Error            string `json:"error,omitempty"`
	ErrorKind        Kind   `json:"errorKind,omitempty"`
}

// ReduceRounds keeps the groups and intermediate answers of a run's tree
// reduce, keyed by run like its map answers, so that a step of one run
// never reads or writes another's (docs/contract.md#query-ids). Every item
// expires with its run.
type ReduceRounds interface {
	// SaveReduceGroups stores groups of run runID; saving a group again
	// overwrites it.
	SaveReduceGroups(ctx context.Context, queryID, runID string, groups []ReduceGroup) error
	// ReduceGroup returns one group of run runID, or ErrNotFound, also
	// when runID is no longer the query id's current run.
	ReduceGroup(ctx context.Context, queryID, runID string, round, index int) (ReduceGroup, error)
	// AddGroupAnswer records one attempt at a group: Calls and tokens are
	// added to the group's, and Done's fields (when a.Done) or Error and
	// ErrorKind (when Error is set) replace the group's.
	AddGroupAnswer(ctx context.Context, queryID, runID string, a GroupAnswer) error
	// GroupAnswers returns the group answers of run runID by round, then
	// index.
	GroupAnswers(ctx context.Context, queryID, runID string) ([]GroupAnswer, error)
}

// MaxReduceRound and MaxReduceGroupIndex bound what the runs store keys.
const (
	MaxReduceRound      = 999
	MaxReduceGroupIndex = 999_999
)

// CheckGroupKey refuses a round or group index the runs stores cannot key.
func CheckGroupKey(queryID string, round, index int) error {
	if queryID == "" {
		return Errorf(KindInvalidInput, "queryId must not be empty")
	}
	if round < 1 || round > MaxReduceRound || index < 0 || index > MaxReduceGroupIndex {
		return Errorf(KindInvalidInput, "reduce group %d of round %d of query %s: round must be 1 to %d and index 0 to %d",
			index, round, queryID, MaxReduceRound, MaxReduceGroupIndex)
	}
	return nil
}

// Runs is everything a search persists about one run, keyed by query id.
type Runs interface {
	Requests
	Plans
	Answers
	Results
	ReduceCalls
	Selections
	ReduceRounds
	MapAttemptTallies
}

// DefaultRunsTTL is how long a deployment keeps a run's items when the
// template's RunsTtlDays is not given (docs/contract.md#tables): the runs
// table's expiry and prepare's ExpiresAt for a Distributed Map's records.
const DefaultRunsTTL = 7 * 24 * time.Hour

// IndexWriter replaces the records of a namespace: the ingest and import
// paths, never the search, write through it.
type IndexWriter interface {
	// ReplaceNamespace replaces every record of a namespace at once
	// (docs/contract.md#namespace-versions). Records without a summary
	// are invalid input: they would empty the namespace, which only
	// DeleteNamespace does (docs/contract.md#ingest).
	ReplaceNamespace(ctx context.Context, namespace string, r Records) error
	// DeleteNamespace empties a namespace at once; deleting one that does
	// not exist is no error.
	DeleteNamespace(ctx context.Context, namespace string) error
}

// NoSummariesMessage says why records without a summary replace no
// namespace (docs/contract.md#ingest): they would empty it, and a file or
// import that holds nothing is far likelier a mistake than a wish.
const NoSummariesMessage = "the records hold no summaries, so they would empty the namespace: a replacement needs at least one summary, and emptying a namespace is its own operation (delete the namespace)"
