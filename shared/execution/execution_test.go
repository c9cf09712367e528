package execution_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/execution"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// fakeSFN keeps executions by ARN, like Step Functions, with an optional
// error for StartExecution.
type fakeSFN struct {
	executions map[string]string // execution ARN -> input
	startErr   error
	starts     []*sfn.StartExecutionInput
	failed     bool                             // executions report TIMED_OUT
	ended      map[string]types.ExecutionStatus // execution ARN -> status, for one that is not running
	stopErr    error
	stops      []*sfn.StopExecutionInput
}

// StopExecution aborts a running execution; one that ended is left as it
// is, as Step Functions leaves it.
func (f *fakeSFN) StopExecution(_ context.Context, in *sfn.StopExecutionInput, _ ...func(*sfn.Options)) (*sfn.StopExecutionOutput, error) {
	f.stops = append(f.stops, in)
	if f.stopErr != nil {
		return nil, f.stopErr
	}
	if _, ok := f.executions[*in.ExecutionArn]; !ok {
		return nil, &types.ExecutionDoesNotExist{Message: new("no such execution")}
	}
	if _, done := f.ended[*in.ExecutionArn]; !done {
		f.ended[*in.ExecutionArn] = types.ExecutionStatusAborted
	}
	return &sfn.StopExecutionOutput{}, nil
}

func (f *fakeSFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	f.starts = append(f.starts, in)
	if f.startErr != nil {
		return nil, f.startErr
	}
	arn := "arn:aws:states:eu-west-1:123456789012:execution:search:" + *in.Name
	if _, ok := f.executions[arn]; ok {
		return nil, &types.ExecutionAlreadyExists{Message: new("exists")}
	}
	f.executions[arn] = *in.Input
	return &sfn.StartExecutionOutput{ExecutionArn: &arn}, nil
}

func (f *fakeSFN) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	input, ok := f.executions[*in.ExecutionArn]
	if !ok {
		return nil, &types.ExecutionDoesNotExist{Message: new("no such execution")}
	}
	out := &sfn.DescribeExecutionOutput{ExecutionArn: in.ExecutionArn, Input: &input, Status: types.ExecutionStatusRunning}
	if f.failed {
		out.Status, out.Error, out.Cause = types.ExecutionStatusTimedOut, new("States.Timeout"), new("the Map state timed out")
	}
	if status, ok := f.ended[*in.ExecutionArn]; ok {
		out.Status = status
	}
	return out, nil
}

const machine = "arn:aws:states:eu-west-1:123456789012:stateMachine:search"

func TestStart(t *testing.T) {
	cases := []struct {
		name     string
		existing string // input of an execution named q1 that already exists
		startErr error
		input    string
		wantKind globalsearch.Kind
		wantErr  bool
	}{
		{name: "new execution", input: `{"query":"a"}`},
		{name: "same input again is success", existing: `{"query": "a"}`, input: `{"query":"a"}`},
		{name: "same name, other input", existing: `{"query":"b"}`, input: `{"query":"a"}`, wantErr: true, wantKind: globalsearch.KindInvalidInput},
		{name: "throttled", startErr: &smithy.GenericAPIError{Code: "ThrottlingException"}, input: `{}`, wantErr: true, wantKind: globalsearch.KindThrottled},
		{name: "other failure", startErr: errors.New("network down"), input: `{}`, wantErr: true, wantKind: globalsearch.KindInternal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeSFN{executions: map[string]string{}, startErr: tc.startErr}
			if tc.existing != "" {
				api.executions["arn:aws:states:eu-west-1:123456789012:execution:search:q1"] = tc.existing
			}
			err := execution.New(api, machine).Start(context.Background(), "q1", []byte(tc.input))
			if tc.wantErr {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
				return
			}
			require.NoError(t, err)
			require.Len(t, api.starts, 1)
			assert.Equal(t, machine, *api.starts[0].StateMachineArn)
			assert.Equal(t, "q1", *api.starts[0].Name)
		})
	}
}

func TestExecution(t *testing.T) {
	api := &fakeSFN{executions: map[string]string{}}
	s := execution.New(api, machine)
	status, failure, err := s.Execution(context.Background(), "q1")
	require.NoError(t, err)
	assert.Empty(t, status, "no execution")
	assert.Empty(t, failure)
	require.NoError(t, s.Start(context.Background(), "q1", []byte(`{}`)))
	status, failure, err = s.Execution(context.Background(), "q1")
	require.NoError(t, err)
	assert.Equal(t, "RUNNING", status)
	assert.Empty(t, failure)
	api.failed = true
	status, failure, err = s.Execution(context.Background(), "q1")
	require.NoError(t, err)
	assert.Equal(t, "TIMED_OUT", status)
	assert.Equal(t, "States.Timeout: the Map state timed out", failure)
}

func TestStop(t *testing.T) {
	const arn = "arn:aws:states:eu-west-1:123456789012:execution:search:q1"
	cases := []struct {
		name     string
		exists   bool
		ended    types.ExecutionStatus // "" for running
		stopErr  error
		want     types.ExecutionStatus // the execution's status after the stop; "" for none
		wantErr  bool
		wantKind globalsearch.Kind
	}{
		{name: "a running execution is aborted", exists: true, want: types.ExecutionStatusAborted},
		{name: "an ended execution stays as it ended", exists: true, ended: types.ExecutionStatusSucceeded, want: types.ExecutionStatusSucceeded},
		{name: "no execution: nothing to stop"},
		{name: "a refused stop of an ended execution is not an error", exists: true, ended: types.ExecutionStatusFailed,
			stopErr: &smithy.GenericAPIError{Code: "ValidationException", Message: "execution is not running"}, want: types.ExecutionStatusFailed},
		{name: "a refused stop of a running execution is its error", exists: true,
			stopErr: errors.New("network down"), want: types.ExecutionStatusRunning, wantErr: true, wantKind: globalsearch.KindInternal},
		{name: "throttled", exists: true, stopErr: &smithy.GenericAPIError{Code: "ThrottlingException"},
			want: types.ExecutionStatusRunning, wantErr: true, wantKind: globalsearch.KindThrottled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeSFN{executions: map[string]string{}, ended: map[string]types.ExecutionStatus{}, stopErr: tc.stopErr}
			if tc.exists {
				api.executions[arn] = `{}`
			}
			if tc.ended != "" {
				api.ended[arn] = tc.ended
			}
			s := execution.New(api, machine)
			err := s.Stop(context.Background(), "q1", "cancelled through the HTTP API")
			if tc.wantErr {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err))
			} else {
				require.NoError(t, err)
			}
			require.Len(t, api.stops, 1)
			assert.Equal(t, arn, *api.stops[0].ExecutionArn, "the execution named by the query id, under this state machine")
			assert.Equal(t, execution.StopCode, *api.stops[0].Error)
			assert.Equal(t, "cancelled through the HTTP API", *api.stops[0].Cause)
			status, _, err := s.Execution(context.Background(), "q1")
			require.NoError(t, err)
			assert.Equal(t, string(tc.want), status)
		})
	}
}
