package deploy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoppedExecutionRule: the stack's own executions that end ABORTED,
// TIMED_OUT or FAILED reach the reduce function's task "stopped"
// (docs/contract.md#stopped-executions), which EventBridge may invoke, and
// no other rule invokes it.
func TestStoppedExecutionRule(t *testing.T) {
	s := translate(t, nil)
	rule := s.resource(t, "StoppedExecutionRule", "AWS::Events::Rule")
	assert.Equal(t, map[string]any{
		"source":      []any{"aws.states"},
		"detail-type": []any{"Step Functions Execution Status Change"},
		"detail": map[string]any{
			"stateMachineArn": []any{map[string]any{"Ref": "SearchStateMachine"}},
			"status":          []any{"ABORTED", "TIMED_OUT", "FAILED"},
		},
	}, rule["EventPattern"])
	targets, ok := rule["Targets"].([]any)
	require.True(t, ok)
	require.Len(t, targets, 1)
	target := targets[0].(map[string]any)
	assert.Equal(t, map[string]any{"Fn::GetAtt": []any{"ReduceFunction", "Arn"}}, target["Arn"])
	assert.Equal(t, map[string]any{"detail": "$.detail"}, path(target, "InputTransformer", "InputPathsMap"))
	assert.Equal(t, `{"task": "stopped", "execution": <detail>}`, path(target, "InputTransformer", "InputTemplate"))

	perm := s.resource(t, "StoppedExecutionPermission", "AWS::Lambda::Permission")
	assert.Equal(t, "lambda:InvokeFunction", perm["Action"])
	assert.Equal(t, "events.amazonaws.com", perm["Principal"])
	assert.Equal(t, map[string]any{"Ref": "ReduceFunction"}, perm["FunctionName"])
	assert.Equal(t, map[string]any{"Fn::GetAtt": []any{"StoppedExecutionRule", "Arn"}}, perm["SourceArn"], "only this rule may invoke it")
	assert.Equal(t, []string{"StoppedExecutionRule"}, s.ofType("AWS::Events::Rule"))
}
