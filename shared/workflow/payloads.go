package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/taskerror"
)

// Options are the aws-lambda-go options every workflow handler runs with, in
// Lambda (lambda.StartWithOptions) and in tests and the CLI
// (lambda.NewHandlerWithOptions): task inputs are written by our own ASL, so
// an unknown field is a contract break, not something to ignore.
func Options() []lambda.Option {
	return []lambda.Option{lambda.WithDisallowUnknownFields(true)}
}

// decodeTask decodes a task input into v as Options asks, and returns
// every decode error as an unwrapped *InvalidInputError: aws-lambda-go
// would report encoding/json's own error, whose type names (errorString,
// UnmarshalTypeError) the ASL cannot match (docs/contract.md#errors).
// Each input type's UnmarshalJSON calls it with a method-less copy of
// itself. A payload that is not JSON never gets here: Lambda refuses it
// before the function runs.
func decodeTask(name string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "":
		msg = "must be a JSON object, not a JSON " + typeErr.Value
	case typeErr != nil:
		msg = fmt.Sprintf("field %q cannot be a JSON %s", typeErr.Field, typeErr.Value)
	}
	return &InvalidInputError{Message: name + " task input: " + msg}
}

// UnmarshalJSON decodes the Prepare task's input (decodeTask).
func (in *PrepareInput) UnmarshalJSON(data []byte) error {
	type plain PrepareInput
	return decodeTask("prepare", data, (*plain)(in))
}

// UnmarshalJSON decodes the Map task's input (decodeTask).
func (in *MapInput) UnmarshalJSON(data []byte) error {
	type plain MapInput
	return decodeTask("map", data, (*plain)(in))
}

// UnmarshalJSON decodes the Reduce task's input (decodeTask).
func (in *ReduceInput) UnmarshalJSON(data []byte) error {
	type plain ReduceInput
	return decodeTask("reduce", data, (*plain)(in))
}

// PrepareInput is the Prepare task's payload: the execution's input (a
// search request, docs/contract.md#request) and the execution's name, which becomes the query
// id of a request that has none (docs/contract.md#idempotency).
//
// With Task "select" it is instead the end of a dynamic selection's rating
// round (the SelectNext state, docs/contract.md#dynamic-selection): the
// run and the round it rated, and no request.
type PrepareInput struct {
	Request       json.RawMessage `json:"request,omitempty"`
	ExecutionName string          `json:"executionName,omitempty"`
	Task          string          `json:"task,omitempty"`
	QueryID       string          `json:"queryId,omitempty"`
	RunID         string          `json:"runId,omitempty"`
	Round         int             `json:"round,omitempty"`
}

// The tasks a function's input may name beside its own step: the map
// function rates (TaskRate), the prepare function ends a rating round
// (TaskSelect), the reduce function plans a reduce round (TaskRound) and
// reduces one group of it (TaskGroup, docs/contract.md#reduce-rounds). An
// input without one is the function's own step.
const (
	TaskRate   = "rate"
	TaskSelect = "select"
	TaskRound  = "round"
	TaskGroup  = "group"
	// TaskStopped (the reduce function) records an execution that ended
	// without a result of its own (docs/contract.md#stopped-executions).
	TaskStopped = "stopped"
)

// PrepareOutput is what Prepare hands the Map state: small enough for a
// state (docs/contract.md#tables), with the batches themselves in the runs table.
// BatchIndexes (0 to BatchCount-1) are the inline Map's items; the
// Distributed Map reads the same list from ItemsKey.
// MapConcurrency is the Map's MaxConcurrencyPath: what the model quota
// sustains, or the request's mapConcurrency, capped by the deployment's
// maximum (docs/contract.md#quota); ETASeconds is how long the plan's
// model calls are expected to take, for whoever reads the execution's
// history. Mode is globalsearch.MapMode's choice. ExpiresAt (epoch seconds, distributed mode only) is the
// TTL of the failure items the Distributed Map writes itself: JSONPath has
// no clock.
type PrepareOutput struct {
	QueryID        string `json:"queryId"`
	RunID          string `json:"runId"`
	BatchCount     int    `json:"batchCount"`
	BatchIndexes   []int  `json:"batchIndexes"`
	MapConcurrency int    `json:"mapConcurrency"`
	ETASeconds     int    `json:"etaSeconds"`
	Mode           string `json:"mode"`
	ExpiresAt      int64  `json:"expiresAt,omitempty"`
	// ItemsKey (distributed mode only, where BatchIndexes is null) is the
	// payload-bucket object holding the batch indexes, which the
	// Distributed Map's ItemReader reads (docs/contract.md#payloads-bucket).
	ItemsKey string `json:"itemsKey,omitempty"`
	// Round and RatingBatchIndexes (ModeSelecting only) are the rating
	// round to run next and its batch indexes, the RateCommunities Map's
	// items (docs/contract.md#dynamic-selection).
	Round              int   `json:"round,omitempty"`
	RatingBatchIndexes []int `json:"ratingBatchIndexes,omitempty"`
	// ReduceMode (once the run is planned) is the request's reduceMode,
	// which the ReduceMode Choice reads after the map: ReduceSingle goes
	// straight to Reduce, ReduceTree plans rounds first
	// (docs/contract.md#reduce-rounds).
	ReduceMode string `json:"reduceMode,omitempty"`
}

// MapInput is one Map iteration's task payload. Attempt is 1-based, from
// $$.State.RetryCount + 1. RunID is the run Prepare started; the state
// machine always passes it, so a batch of a newer plan of the same query id
// is refused. Without it (a hand-made event) the task answers the current
// plan.
//
// With Task "rate" it is one attempt at rating batch BatchIndex of round
// Round of a dynamic selection (the RateBatch state,
// docs/contract.md#dynamic-selection), which always names its run.
type MapInput struct {
	QueryID    string `json:"queryId"`
	RunID      string `json:"runId,omitempty"`
	BatchIndex int    `json:"batchIndex"`
	Attempt    int    `json:"attempt"`
	Task       string `json:"task,omitempty"`
	Round      int    `json:"round,omitempty"`
}

// MapOutput is one batch that produced an answer; the answer itself is in
// the runs table.
// A rating attempt's output is its batch index and whether it rated; its
// scores are in the runs table too.
type MapOutput struct {
	BatchIndex int     `json:"batchIndex"`
	Usefulness float64 `json:"usefulness"`
	Rated      bool    `json:"rated,omitempty"`
}

// MapResult is one item of the Map state's output: a MapOutput, or a batch
// whose iteration failed, as the Catch inside the iteration writes it
// (`{"failed": true, "batchIndex": n, "error": "ModelOutputError"}`). Only
// the error's name travels: a Cause per failed batch could push the Map
// output past 256 KiB; the map function logs each attempt's full message
// with queryId and batch.
type MapResult struct {
	BatchIndex int     `json:"batchIndex"`
	Usefulness float64 `json:"usefulness,omitempty"`
	Failed     bool    `json:"failed,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// ReduceInput is the payload of the Reduce task and, with Failure set, of
// the RecordReduceFailure task its Catch leads to. RunID is as in MapInput:
// the map results belong to that run, and a newer plan refuses them. Mode
// is prepare's: in ModeDistributed, MapResults is empty and the failed
// batches are read from the runs table, where the Distributed Map recorded
// them, so no payload grows with the batch count.
//
// With Task "round" it is the start of a reduce round (the PlanReduceRound
// state, docs/contract.md#reduce-rounds), with the map's failures as Reduce
// gets them; with Task "group" it is one attempt (1-based, as MapInput's)
// at group GroupIndex of round Round (the ReduceGroup state), which names
// its run and nothing of the map.
type ReduceInput struct {
	QueryID    string       `json:"queryId"`
	RunID      string       `json:"runId,omitempty"`
	Mode       string       `json:"mode,omitempty"`
	MapResults []MapResult  `json:"mapResults"`
	Failure    *TaskFailure `json:"failure,omitempty"`
	Task       string       `json:"task,omitempty"`
	Round      int          `json:"round,omitempty"`
	GroupIndex int          `json:"groupIndex,omitempty"`
	Attempt    int          `json:"attempt,omitempty"`
	// Execution (task "stopped" only) is the execution that ended: the
	// detail of Step Functions' EventBridge event, or what the
	// RecordFailureSpend state passes of its own execution.
	Execution *ExecutionStatus `json:"execution,omitempty"`
}

// TaskFailure is the error a Catch hands on (ResultPath "$.error"): the
// error name and its cause, which for a Lambda task is the function's
// {"errorMessage", "errorType"} as JSON.
type TaskFailure struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// message is the failure's own message when the cause is a Lambda error,
// else the cause as it came.
func (f TaskFailure) message() string {
	return taskerror.Message(f.Error, f.Cause)
}

// ReduceOutput ends the execution; the result is in the runs table. The
// tasks of a reduce in rounds have no status: a round's output is
// ReduceRound, which the PlanReduceRound state keeps in $.reduceRound, and a
// group's is its query id alone (its answer is in the runs table).
type ReduceOutput struct {
	QueryID     string              `json:"queryId"`
	Status      globalsearch.Status `json:"status,omitempty"`
	ReduceRound *ReduceRound        `json:"reduceRound,omitempty"`
}

// ReduceRound is what the state machine needs of the next reduce round
// (docs/contract.md#reduce-rounds): its number, its group count (0: one
// prompt holds every candidate, and Reduce writes the final answer) and the
// group indexes 0 to Groups-1, the ReduceGroups Map's items. Every field is
// always written: the state reads each by path.
type ReduceRound struct {
	Round        int   `json:"round"`
	Groups       int   `json:"groups"`
	GroupIndexes []int `json:"groupIndexes"`
}
