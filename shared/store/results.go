package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/taskerror"
)

// SaveResult implements globalsearch.Results with one UpdateItem of the
// result item, which keeps what the claim and the run wrote there: its
// owner and its expiry (all items of a run share one,
// docs/contract.md#tables). With a runID the update is conditional on the
// item naming that run, as SavePlan wrote it: a newer plan, or a failure
// recorded since, makes it fail. Without one it also clears the run, so
// the runs before it can no longer save theirs.
func (s *Runs) SaveResult(ctx context.Context, r globalsearch.Result, runID string) error {
	if err := requireQueryID(r.QueryID); err != nil {
		return err
	}
	what := "result of query " + r.QueryID
	gz, err := s.encodeResult(what, r, runID)
	if err != nil {
		return err
	}
	update := resultUpdate(r.Status, gz, s.expiresAt())
	// With a runID, the condition that it is still the run; a cancel
	// ended the run (docs/contract.md#cancel), so that fails too. Without
	// one, the condition that the result is not cancelled.
	var cond expression.ConditionBuilder
	if runID == "" {
		update = update.Set(expression.Name(attrRunID), expression.Value(endedRunID))
		cond = notCancelled()
	} else {
		cond = expression.Name(attrRunID).Equal(expression.Value(runID))
	}
	superseded, err := s.updateIf(ctx, "save", what, r.QueryID, skResult, expression.NewBuilder().WithCondition(cond).WithUpdate(update))
	if superseded && runID == "" {
		return fmt.Errorf("%s: the query was cancelled: %w", what, globalsearch.ErrNotFound)
	}
	if superseded {
		return fmt.Errorf("%s: run %s is no longer the current run: %w", what, runID, globalsearch.ErrNotFound)
	}
	return err
}

// encodeResult gzips r and checks that the result item holding it fits.
func (s *Runs) encodeResult(what string, r globalsearch.Result, runID string) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(r); err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress %s: %w", what, err)
	}
	// The whole item as a put would write it, for the size check only.
	if _, err := s.marshalRun(what, runItem{QueryID: r.QueryID, SK: skResult, ExpiresAt: s.expiresAt(), RunID: runID, Owner: r.QueryID, Status: string(r.Status), Result: buf.Bytes()}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// resultUpdate sets a result item's status and gzipped result, and keeps
// its expiry. No REMOVE: an emulator (minidyn) ignores it. The error,
// cause and failedAt a RecordFailure may have left beside resultGzip are
// never read (Result reads resultGzip first).
func resultUpdate(status globalsearch.Status, gz []byte, exp int64) expression.UpdateBuilder {
	return expression.Set(expression.Name(attrStatus), expression.Value(string(status))).
		Set(expression.Name(attrResultGzip), expression.Value(gz)).
		Set(expression.Name(TTLAttribute), expression.IfNotExists(expression.Name(TTLAttribute), expression.Value(exp)))
}

// Result implements globalsearch.Results.
func (s *Runs) Result(ctx context.Context, queryID string) (globalsearch.Result, error) {
	what := "result of query " + queryID
	it, err := s.get(ctx, what, queryID, skResult)
	if err != nil {
		return globalsearch.Result{}, err
	}
	if len(it.Result) == 0 {
		if it.Status == string(globalsearch.StatusFailed) {
			return recordedFailure(what, it)
		}
		// The item SavePlan writes: the run has no result yet.
		return globalsearch.Result{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	zr, err := gzip.NewReader(bytes.NewReader(it.Result))
	if err != nil {
		return globalsearch.Result{}, fmt.Errorf("decompress %s: %w", what, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return globalsearch.Result{}, fmt.Errorf("decompress %s: %w", what, err)
	}
	var r globalsearch.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return globalsearch.Result{}, fmt.Errorf("decode %s: %w", what, err)
	}
	return r, nil
}

// recordedFailure reads a result item the state machine wrote itself (see
// runItem): a failed result whose error is the caught error's name and its
// message.
func recordedFailure(what string, it runItem) (globalsearch.Result, error) {
	if it.Status != string(globalsearch.StatusFailed) || it.Error == "" {
		return globalsearch.Result{}, fmt.Errorf("decode %s: no resultGzip, and not a failure the state machine recorded (status %q)", what, it.Status)
	}
	at, _ := time.Parse(time.RFC3339Nano, it.FailedAt) // unreadable: no time, the failure still reads
	return globalsearch.FailedResult(it.QueryID, failureMessage(it.Error, it.Cause), at), nil
}

// failureMessage is "<error>: <message>", the message taken from the
// caught error {"Error", "Cause"} as JSON, whose Cause for a Lambda error
// is itself JSON with an errorMessage. Whatever cannot be read that way is
// kept as it came.
func failureMessage(name, cause string) string {
	var caught struct {
		Cause *string `json:"Cause"`
	}
	if json.Unmarshal([]byte(cause), &caught) != nil {
		return taskerror.Message(name, cause)
	}
	if caught.Cause == nil || *caught.Cause == "" {
		return name + ": no cause was given"
	}
	return taskerror.Message(name, *caught.Cause)
}
