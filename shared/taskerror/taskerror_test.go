package taskerror_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/taskerror"
)

func TestMessage(t *testing.T) {
	tests := []struct {
		name, errName, cause, want string
	}{
		{"a Lambda error gives its message", "ModelError", `{"errorMessage":"model unavailable","errorType":"ModelError"}`, "ModelError: model unavailable"},
		{"a cause that is not JSON comes as it is", "States.Timeout", "the task timed out", "States.Timeout: the task timed out"},
		{"JSON without a message comes as it is", "States.Runtime", `{"errorType":"X"}`, `States.Runtime: {"errorType":"X"}`},
		{"an empty message keeps the cause", "X", `{"errorMessage":""}`, `X: {"errorMessage":""}`},
		{"no cause is the name alone", "States.TaskFailed", "", "States.TaskFailed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, taskerror.Message(tc.errName, tc.cause))
		})
	}
}
