package workflow

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// ExecutionStatus is the detail of a "Step Functions Execution Status
// Change" event, as EventBridge hands it to the reduce function (the
// StoppedExecutionRule's input transformer puts it under "execution"), or
// the same fields the RecordFailureSpend state writes. Input is the
// execution's input as a JSON string, null when the event left it out
// (inputDetails.included false: past 248 KB with the output).
type ExecutionStatus struct {
	ExecutionArn    string  `json:"executionArn"`
	StateMachineArn string  `json:"stateMachineArn"`
	Name            string  `json:"name"`
	Status          string  `json:"status"`
	Input           *string `json:"input"`
	Error           *string `json:"error"`
	Cause           *string `json:"cause"`
}

// UnmarshalJSON decodes the detail leniently: it is AWS's document, not
// one our ASL writes, and a field AWS adds (redriveCount came late) must
// not refuse the record. Only a type that does not fit is invalid input.
func (e *ExecutionStatus) UnmarshalJSON(data []byte) error {
	type plain ExecutionStatus
	if err := json.Unmarshal(data, (*plain)(e)); err != nil {
		return &InvalidInputError{"stopped task input: execution: " + err.Error()}
	}
	return nil
}

// endedStatuses are the statuses a stopped execution's record answers: the
// StoppedExecutionRule's pattern.
var endedStatuses = map[string]bool{"ABORTED": true, "TIMED_OUT": true, "FAILED": true}

// stopped is the reduce function's task "stopped": the record of an
// execution that ended without a result of its own, with what its run
// spent (Engine.RecordStopped, docs/contract.md#stopped-executions). It
// runs from the StoppedExecutionRule (ABORTED, TIMED_OUT, FAILED: a stop
// from the console, the CLI or a parent workflow, a timeout) and from the
// RecordFailureSpend state after RecordFailure. An execution that does not
// own the query id's result, or one whose result is saved, writes nothing.
func (h *Handlers) stopped(ctx context.Context, in ReduceInput) (ReduceOutput, error) {
	x := in.Execution
	if x == nil || x.Name == "" || !endedStatuses[x.Status] || in.RunID != "" || in.Mode != "" || in.MapResults != nil ||
		in.Failure != nil || in.Round != 0 || in.GroupIndex != 0 || in.Attempt != 0 {
		return ReduceOutput{}, &InvalidInputError{`stopped task input needs an execution with a name and a status ABORTED, TIMED_OUT or FAILED, and nothing of another task`}
	}
	queryID := in.QueryID
	if queryID == "" {
		queryID = x.QueryID()
	}
	if !globalsearch.ValidQueryID(queryID) {
		return ReduceOutput{}, &InvalidInputError{fmt.Sprintf("stopped task input: %q is not a query id", queryID)}
	}
	ctx, cancel := withMargin(ctx)
	defer cancel()
	end := globalsearch.ExecutionEnd{Owner: x.Name, Status: x.Status, Error: deref(x.Error), Cause: deref(x.Cause)}
	res, recorded, err := h.Engine.RecordStopped(ctx, queryID, end)
	if err != nil {
		return ReduceOutput{}, handlerError(ctx, err)
	}
	out := ReduceOutput{QueryID: queryID}
	if recorded {
		out.Status = res.Status
	}
	return out, nil
}

// QueryID is the query id the execution ran: its request's queryId, else
// its name, as prepare chose it (docs/contract.md#idempotency). An input
// the event left out, or one that names none, leaves the name: the record's
// condition (this execution owns the result) still holds it to its own.
func (x *ExecutionStatus) QueryID() string {
	if x.Input != nil {
		var req struct {
			QueryID any `json:"queryId"`
		}
		if json.Unmarshal([]byte(*x.Input), &req) == nil {
			if id, ok := req.QueryID.(string); ok && id != "" {
				return id
			}
		}
	}
	return x.Name
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
