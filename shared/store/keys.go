package store

import "fmt"

// Every key the store writes, in one place (docs/dynamodb.md): the template
// (deploy/template.yaml) declares the same key schema and TTL attribute,
// which deploy's tests check against CreateTables.

// Key attributes of the two tables. Both tables are keyed by a partition
// key and a sort key named attrSK.
const (
	attrNamespace = "namespace" // index table partition key
	attrQueryID   = "queryId"   // runs table partition key
	attrSK        = "sk"
	// TTLAttribute is the runs table's TTL attribute (epoch seconds).
	TTLAttribute = "expiresAt"
)

// Attributes of the runs table's result item that the store updates in
// place and the state machine writes (RecordFailure in the ASL).
const (
	attrRunID      = "runId"
	attrOwner      = "owner"
	attrStatus     = "status"
	attrResultGzip = "resultGzip"
	attrError      = "error"
	attrCause      = "cause"
	attrFailedAt   = "failedAt"
)

// endedRunID is the runId of a result item whose run was ended by a result
// saved without one (a failure prepare recorded): no run id equals it, so no
// run can save its result any more.
const endedRunID = "(ended)"

// Sort-key prefixes of the index table, one per record kind.
const (
	prefixSummary = "summary#"
	prefixClaim   = "claim#"
	prefixChunk   = "chunk#"
	// prefixEntity and prefixRelationship hold the GraphRAG graph
	// (docs/contract.md#entities).
	prefixEntity       = "entity#"
	prefixRelationship = "relationship#"
)

// Namespace versions (docs/contract.md#namespace-versions): the records of
// version v of namespace ns live in partition "ns#v" ('#' is no namespace
// character, so no name collides with a version), and the head item
// (partition ns, sort key headSK) names the version searches read, the
// versions being written (pending) and those replaced but not yet deleted
// (retired). A namespace without a head, or whose head names no version,
// is the layout before versions: its records in partition ns itself, read
// as the legacy version.
const (
	headSK      = "#head"
	attrVersion = "version"
	attrPending = "pending"
	attrRetired = "retired"
	// attrCounts, on the head, is how many records of each kind the
	// current version holds (recordCounts).
	attrCounts = "counts"
	// legacyVersion names the head-less partition in the version sets (a
	// set cannot hold ""); generated versions are hex, so never this.
	legacyVersion = "legacy"
)

// versionPartition is the partition holding a version's records.
func versionPartition(namespace, version string) string {
	if version == "" || version == legacyVersion {
		return namespace
	}
	return namespace + "#" + version
}

// The namespace catalog is one item of the index table listing the
// namespaces that hold records, so that an empty search can say which
// namespaces exist with one Query (prepare may Query the index table, never
// Scan it). Its partition key is not a valid namespace name, so no
// namespace can collide with it.
const (
	catalogNamespace = "#catalog"
	catalogSK        = "namespaces"
	catalogNames     = "names"
)

// Sort keys of the runs table.
const (
	skRequest    = "request"
	skPlan       = "plan"
	skResult     = "result"
	prefixReduce = "reduce-calls#"
	prefixBatch  = "batch#"
	prefixAnswer = "answer#"
	// A map batch the Distributed Map recorded as failed: written by the
	// state machine (RecordBatchFailure in the ASL, a direct PutItem), as
	// map-failure#<runId>#<batchIndex> with the index unpadded (JSONPath
	// cannot pad), so only MapFailures reads these, never by sort order.
	prefixMapFailure = "map-failure#"
	maxBatchIndex    = 999_999 // six digits keep sort-key order = index order
	batchKeyFormat   = "%06d"
	// A dynamic selection's rating batches and ratings
	// (docs/contract.md#dynamic-selection), by run, round and batch:
	// rating#<runId>#<round, 3 digits>#<index, 6 digits>.
	prefixRatingBatch = "rating-batch#"
	prefixRating      = "rating#"
	ratingKeyFormat   = "%03d#%06d"
)

// The tallies of the map attempts no answer holds (mapattempts.go), by run
// and batch: map-attempt#<runId>#<index, 6 digits>.
const prefixMapAttempt = "map-attempt#"

// Batches, answers and reduce counts are keyed by run, so that a save of a
// new plan never overwrites the batches of the current one (or of a racing
// save), and a task of an earlier plan that writes late lands beside the
// current run, never in it (docs/contract.md#query-ids).
func batchPrefix(runID string) string { return prefixBatch + runID + "#" }
func batchSK(runID string, i int) string {
	return batchPrefix(runID) + fmt.Sprintf(batchKeyFormat, i)
}
func answerPrefix(runID string) string { return prefixAnswer + runID + "#" }
func answerSK(runID string, i int) string {
	return answerPrefix(runID) + fmt.Sprintf(batchKeyFormat, i)
}
func reduceSK(runID string) string         { return prefixReduce + runID }
func mapFailurePrefix(runID string) string { return prefixMapFailure + runID + "#" }

// Rating batches and ratings are keyed by run like batches and answers.
func ratingBatchSK(runID string, round, i int) string {
	return prefixRatingBatch + runID + "#" + fmt.Sprintf(ratingKeyFormat, round, i)
}
func ratingPrefix(runID string) string { return prefixRating + runID + "#" }
func ratingSK(runID string, round, i int) string {
	return ratingPrefix(runID) + fmt.Sprintf(ratingKeyFormat, round, i)
}
