package statemachine_test

import (
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retrier and catcher are the ASL's Retry and Catch entries as written:
// a field left out decodes as nil (MaxAttempts left out means 3 in ASL,
// which is not the same rule as an explicit 3).
type retrier struct {
	ErrorEquals     []string
	IntervalSeconds *int
	MaxAttempts     *int
	BackoffRate     *float64
	MaxDelaySeconds *int
	JitterStrategy  string
}

type catcher struct {
	ErrorEquals []string
	Next        string
	// ResultPath as raw JSON: "" when left out (the error replaces the
	// state's input), "null" to drop the error, or a quoted path.
	ResultPath json.RawMessage
}

type taskPolicy struct {
	Type           string
	Resource       string
	TimeoutSeconds *int
	Retry          []retrier
	Catch          []catcher
	Parameters     struct{ FunctionName string }
}

func ptr[T any](v T) *T { return &v }

// lambdaServiceRetrier is AWS's recommended retrier for Lambda service
// errors (docs/contract.md#aws), the first of every Lambda task's Retry.
var lambdaServiceRetrier = retrier{
	ErrorEquals:     []string{"Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.TooManyRequestsException"},
	IntervalSeconds: ptr(1), MaxAttempts: ptr(3), BackoffRate: ptr(2.0), JitterStrategy: "FULL",
}

// mapServiceRetrier and mapThrottleRetrier are the map task's: a throttled
// map invocation (the map function's reserved concurrency is full) waits
// for a slot far longer than the recommended retrier's ~7 s, since a model
// call takes 10 s or more; the other service errors keep the recommended
// retrier.
var (
	mapServiceRetrier = retrier{
		ErrorEquals:     []string{"Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException"},
		IntervalSeconds: ptr(1), MaxAttempts: ptr(3), BackoffRate: ptr(2.0), JitterStrategy: "FULL",
	}
	mapThrottleRetrier = retrier{
		ErrorEquals:     []string{"Lambda.TooManyRequestsException"},
		IntervalSeconds: ptr(5), MaxAttempts: ptr(6), BackoffRate: ptr(2.0), MaxDelaySeconds: ptr(60), JitterStrategy: "FULL",
	}
)

// secondAttempt is the one Retry of a map batch or a reduce on the
// application errors a second attempt can cure: MaxAttempts counts retries,
// so 1 is the second of docs/contract.md#map-calls's two attempts.
var secondAttempt = retrier{
	ErrorEquals:     []string{"ModelOutputError", "ThrottledError", "ModelError", "InternalError"},
	IntervalSeconds: ptr(5), MaxAttempts: ptr(1), BackoffRate: ptr(2.0), JitterStrategy: "FULL",
}

const lambdaInvoke = "arn:aws:states:::lambda:invoke"

// policies is every Task and Map state of the definition with its Retry,
// Catch and timeouts, and for a Lambda task its function's Timeout in
// template.yaml. A change to any of them must change this table too.
var policies = map[string]struct {
	policy          taskPolicy
	function        string // template.yaml logical id; "" for a task that invokes none
	functionTimeout int    // seconds, template.yaml
}{
	"Prepare": {function: "PrepareFunction", functionTimeout: 120, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(150),
		Retry: []retrier{lambdaServiceRetrier, {
			ErrorEquals:     []string{"ThrottledError", "InternalError"},
			IntervalSeconds: ptr(2), MaxAttempts: ptr(2), BackoffRate: ptr(2.0), MaxDelaySeconds: ptr(30), JitterStrategy: "FULL",
		}},
		Catch: []catcher{
			{ErrorEquals: []string{"InvalidInputError", "CorruptIndexError", "PlanTooLargeError"}, Next: "SearchFailed"},
			{ErrorEquals: []string{"States.ALL"}, Next: "FailureQueryId", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"MapBatches": {policy: taskPolicy{
		Type: "Map",
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"MapBatch": {function: "MapFunction", functionTimeout: 180, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(210),
		Retry: []retrier{mapServiceRetrier, mapThrottleRetrier, secondAttempt},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "BatchFailed", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	// A dynamic selection's rating round: the rating task is the map
	// task, but a spent rating batch only leaves its communities not
	// rated (docs/contract.md#dynamic-selection).
	"RateCommunities": {policy: taskPolicy{
		Type: "Map",
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"RateBatch": {function: "MapFunction", functionTimeout: 180, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(210),
		Retry: []retrier{mapServiceRetrier, mapThrottleRetrier, secondAttempt},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RatingFailed", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	// The end of a rating round is the prepare function's, with its
	// retries; it saves the failures it ends the run with, as prepare does.
	"SelectNext": {function: "PrepareFunction", functionTimeout: 120, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(150),
		Retry: []retrier{lambdaServiceRetrier, {
			ErrorEquals:     []string{"ThrottledError", "InternalError"},
			IntervalSeconds: ptr(2), MaxAttempts: ptr(2), BackoffRate: ptr(2.0), MaxDelaySeconds: ptr(30), JitterStrategy: "FULL",
		}},
		Catch: []catcher{
			{ErrorEquals: []string{"InvalidInputError", "CorruptIndexError", "PlanTooLargeError", "RatingFailedError"}, Next: "SearchFailed"},
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"MapBatchesDistributed": {policy: taskPolicy{
		Type: "Map",
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	// The child execution's task is the inline one's, but for where a
	// spent batch goes: recorded in the runs table, not returned.
	"MapBatchInChild": {function: "MapFunction", functionTimeout: 180, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(210),
		Retry: []retrier{mapServiceRetrier, mapThrottleRetrier, secondAttempt},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordBatchFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"RecordBatchFailure": {policy: taskPolicy{
		Type: "Task", Resource: "arn:aws:states:::dynamodb:putItem", TimeoutSeconds: ptr(30),
		Retry: []retrier{{ErrorEquals: []string{"States.ALL"}, IntervalSeconds: ptr(1), MaxAttempts: ptr(3), BackoffRate: ptr(2.0), JitterStrategy: "FULL"}},
		// An unwritten record still counts the batch as failed (no answer).
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "BatchFailureUnrecorded", ResultPath: json.RawMessage(`null`)},
		},
	}},
	"Reduce": {function: "ReduceFunction", functionTimeout: 300, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(330),
		Retry: []retrier{lambdaServiceRetrier, secondAttempt},
		Catch: []catcher{
			{ErrorEquals: []string{"AllBatchesFailedError"}, Next: "AllBatchesFailed"},
			{ErrorEquals: []string{"ModelOutputError", "ThrottledError", "ModelError", "InternalError", "NotFoundError", "InvalidInputError", "CorruptPayloadError"},
				Next: "RecordReduceFailure", ResultPath: json.RawMessage(`"$.error"`)},
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordReduceFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	// A reduce round's start makes no model call: like SelectNext it
	// retries what a second try can cure, and any failure left is
	// RecordReduceFailure's (docs/contract.md#reduce-rounds).
	"PlanReduceRound": {function: "ReduceFunction", functionTimeout: 300, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(330),
		Retry: []retrier{lambdaServiceRetrier, {
			ErrorEquals:     []string{"ThrottledError", "InternalError"},
			IntervalSeconds: ptr(2), MaxAttempts: ptr(2), BackoffRate: ptr(2.0), MaxDelaySeconds: ptr(30), JitterStrategy: "FULL",
		}},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordReduceFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"ReduceGroups": {policy: taskPolicy{
		Type: "Map",
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordReduceFailure", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	// A group is retried as a map batch (two attempts), and a spent group
	// only leaves no answer: the result is partial, never lost.
	"ReduceGroup": {function: "ReduceFunction", functionTimeout: 300, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(330),
		Retry: []retrier{mapServiceRetrier, mapThrottleRetrier, secondAttempt},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "GroupFailed", ResultPath: json.RawMessage(`"$.error"`)},
		},
	}},
	"RecordReduceFailure": {function: "ReduceFunction", functionTimeout: 300, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(330),
		// No second attempt: the reduce's own attempts are spent, and a
		// failure here is RecordFailure's to record.
		Retry: []retrier{lambdaServiceRetrier},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "RecordFailure", ResultPath: json.RawMessage(`"$.recordError"`)},
		},
	}},
	// The spend of a recorded failure is best effort: the
	// StoppedExecutionRule's invocation completes it if this one fails.
	"RecordFailureSpend": {function: "ReduceFunction", functionTimeout: 300, policy: taskPolicy{
		Type: "Task", Resource: lambdaInvoke, TimeoutSeconds: ptr(330),
		Retry: []retrier{lambdaServiceRetrier},
		Catch: []catcher{
			{ErrorEquals: []string{"States.ALL"}, Next: "FailWithCaughtError", ResultPath: json.RawMessage(`"$.spendError"`)},
		},
	}},
	"RecordFailure":        {policy: recordPolicy},
	"RecordPrepareFailure": {policy: recordPolicy},
}

// recordPolicy is that of the two states that record a failure themselves:
// a refused condition (the result is another execution's or another run's,
// docs/contract.md#query-ids) is final, anything else is retried.
var recordPolicy = taskPolicy{
	Type: "Task", Resource: "arn:aws:states:::dynamodb:updateItem", TimeoutSeconds: ptr(30),
	Retry: []retrier{
		{ErrorEquals: []string{"DynamoDB.ConditionalCheckFailedException"}, MaxAttempts: ptr(0)},
		{ErrorEquals: []string{"States.ALL"}, IntervalSeconds: ptr(1), MaxAttempts: ptr(3), BackoffRate: ptr(2.0), JitterStrategy: "FULL"},
	},
	Catch: []catcher{
		{ErrorEquals: []string{"States.ALL"}, Next: "FailWithCaughtError", ResultPath: json.RawMessage(`"$.recordError"`)},
	},
}

// definedPolicies decodes every state of the definition, nested ones too.
func definedPolicies(t *testing.T) map[string]taskPolicy {
	t.Helper()
	out := map[string]taskPolicy{}
	for name, s := range states(t) {
		raw, err := json.Marshal(s)
		require.NoError(t, err)
		var p taskPolicy
		require.NoError(t, json.Unmarshal(raw, &p))
		if p.Type == "Task" || p.Type == "Map" {
			out[name] = p
		}
	}
	return out
}

// TestTaskPolicies compares every task's Retry and Catch lists and timeouts
// with the table above, entry by entry, and ties each Lambda task's
// TimeoutSeconds to its function's Timeout in template.yaml.
func TestTaskPolicies(t *testing.T) {
	defined := definedPolicies(t)
	var got, want []string
	for name := range defined {
		got = append(got, name)
	}
	for name := range policies {
		want = append(want, name)
	}
	sort.Strings(got)
	sort.Strings(want)
	require.Equal(t, want, got, "every Task and Map state has a row in the table")

	timeouts := templateTimeouts(t)
	for name, tc := range policies {
		t.Run(name, func(t *testing.T) {
			p := defined[name]
			assert.Equal(t, tc.policy.Type, p.Type)
			assert.Equal(t, tc.policy.Resource, p.Resource)
			assert.Equal(t, tc.policy.Retry, p.Retry, "Retry of %s", name)
			assert.Equal(t, tc.policy.Catch, p.Catch, "Catch of %s", name)
			assert.Equal(t, tc.policy.TimeoutSeconds, p.TimeoutSeconds, "TimeoutSeconds of %s", name)
			if tc.function == "" {
				return
			}
			require.NotNil(t, p.TimeoutSeconds, "a task without TimeoutSeconds waits up to a year")
			assert.Equal(t, tc.functionTimeout, timeouts[tc.function], "Timeout of %s in template.yaml", tc.function)
			// The state machine waits for the function's own timeout, a cold
			// start and the Invoke round trip, and no longer.
			task := time.Duration(*p.TimeoutSeconds) * time.Second
			function := time.Duration(timeouts[tc.function]) * time.Second
			assert.Equal(t, function+invokeSlack, task, "TimeoutSeconds of %s against %s's Timeout", name, tc.function)
			assert.Equal(t, "${"+tc.function+"Arn}", p.Parameters.FunctionName, "the function %s invokes", name)
		})
	}
}
