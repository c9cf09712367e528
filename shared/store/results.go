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
)

// SaveResult implements globalsearch.Results. With a runID the put is
// conditional on the result item naming that run, which SavePlan wrote: a
// newer plan, or a failure recorded since, makes it fail.
func (s *Store) SaveResult(ctx context.Context, r globalsearch.Result, runID string) error {
	if err := requireQueryID(r.QueryID); err != nil {
		return err
	}
	what := "result of query " + r.QueryID
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(r); err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress %s: %w", what, err)
	}
	it := runItem{QueryID: r.QueryID, SK: skResult, ExpiresAt: s.expiresAt(), RunID: runID, Status: string(r.Status), Result: buf.Bytes()}
	if runID == "" {
		return s.put(ctx, what, it)
	}
	m, err := s.marshalRun(what, it)
	if err != nil {
		return err
	}
	superseded, err := s.putIf(ctx, "save", what, m, expression.Name("runId").Equal(expression.Value(runID)), false)
	if superseded != nil {
		return fmt.Errorf("%s: run %s is no longer the current run: %w", what, runID, globalsearch.ErrNotFound)
	}
	return err
}

// Result implements globalsearch.Results.
func (s *Store) Result(ctx context.Context, queryID string) (globalsearch.Result, error) {
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
		return globalsearch.TaskErrorMessage(name, cause)
	}
	if caught.Cause == nil || *caught.Cause == "" {
		return name + ": no cause was given"
	}
	return globalsearch.TaskErrorMessage(name, *caught.Cause)
}
