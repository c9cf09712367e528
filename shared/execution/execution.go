// Package execution is the Step Functions adapter: it starts the search
// state machine with an execution named by the query id (docs/contract.md#idempotency
// idempotency) and tells whether such an execution exists. The HTTP API
// uses it; its in-process twin is the CLI's local starter.
package execution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// API is the part of *sfn.Client the starter uses.
type API interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, optFns ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
	StopExecution(ctx context.Context, in *sfn.StopExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StopExecutionOutput, error)
}

// Starter starts executions of one state machine.
type Starter struct {
	client          API
	stateMachineARN string
}

// New returns a Starter for the state machine stateMachineARN.
func New(client API, stateMachineARN string) *Starter {
	return &Starter{client: client, stateMachineARN: stateMachineARN}
}

// Start starts an execution named name with input. Starting again with the
// same name and input is success: Step Functions answers a running
// duplicate with the original execution and a finished one with
// ExecutionAlreadyExists, which Start checks against the input it was given.
// The same name with a different input is invalid input.
func (s *Starter) Start(ctx context.Context, name string, input []byte) error {
	in := string(input)
	_, err := s.client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: &s.stateMachineARN,
		Name:            &name,
		Input:           &in,
	})
	var exists *types.ExecutionAlreadyExists
	if !errors.As(err, &exists) {
		return classify(err, "start execution %s", name)
	}
	out, err := s.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: new(s.executionARN(name))})
	if err != nil {
		return classify(err, "describe existing execution %s", name)
	}
	if out.Input == nil || !sameJSON([]byte(*out.Input), input) {
		return globalsearch.Errorf(globalsearch.KindInvalidInput,
			"query id %s already names an execution with a different request", name)
	}
	return nil
}

// Execution reports the status of the execution named name (RUNNING,
// SUCCEEDED, FAILED, TIMED_OUT, ABORTED, ...), "" when there is none, and
// for one that failed, its error and cause.
func (s *Starter) Execution(ctx context.Context, name string) (status, failure string, err error) {
	out, err := s.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: new(s.executionARN(name))})
	var missing *types.ExecutionDoesNotExist
	if errors.As(err, &missing) {
		return "", "", nil
	}
	if err != nil {
		return "", "", classify(err, "describe execution %s", name)
	}
	if out.Error != nil {
		failure = *out.Error
		if out.Cause != nil && *out.Cause != "" {
			failure += ": " + *out.Cause
		}
	}
	return string(out.Status), failure, nil
}

// StopCode is the error a stopped execution ends with (its history and
// DescribeExecution show it beside the cause).
const StopCode = "Cancelled"

// Stop stops the execution named name with cause (docs/contract.md#cancel).
// An execution that already ended, or never started, is not an error:
// there is nothing left to stop. Step Functions may refuse a stop of an
// ended execution, so a refused stop is checked with DescribeExecution;
// only one that is still running returns the stop's error.
func (s *Starter) Stop(ctx context.Context, name, cause string) error {
	arn := s.executionARN(name)
	_, err := s.client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: &arn, Error: new(StopCode), Cause: &cause})
	var missing *types.ExecutionDoesNotExist
	if err == nil || errors.As(err, &missing) {
		return nil
	}
	status, _, derr := s.Execution(ctx, name)
	if derr == nil && status != "" && status != string(types.ExecutionStatusRunning) {
		return nil
	}
	return classify(err, "stop execution %s", name)
}

// executionARN derives an execution's ARN from the state machine's:
// arn:aws:states:r:a:stateMachine:M becomes arn:aws:states:r:a:execution:M:name.
func (s *Starter) executionARN(name string) string {
	return strings.Replace(s.stateMachineARN, ":stateMachine:", ":execution:", 1) + ":" + name
}

// classify wraps err with context; Step Functions' throttling (after the
// SDK's retries) becomes KindThrottled, so the API answers 503 and the
// caller retries. ExecutionLimitExceeded is not throttling: it lasts until
// running executions finish.
func classify(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf(format, args...)
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "ThrottlingException" {
		return globalsearch.Errorf(globalsearch.KindThrottled, "%s: %w", msg, err)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}
