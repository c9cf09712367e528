package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestTaskInputDecodeErrorsAreInvalidInput: a task input that does not
// decode fails as InvalidInputError itself, unwrapped, which the ASL
// matches; aws-lambda-go alone would name it errorString or
// UnmarshalTypeError.
func TestTaskInputDecodeErrorsAreInvalidInput(t *testing.T) {
	h, _ := fixture(t, answering(50))
	tests := []struct {
		name    string
		fn      any
		payload string
		wantMsg string
	}{
		{"prepare unknown field", h.Prepare, `{"request":{"query":"x"},"execution":"typo"}`, `prepare task input: unknown field "execution"`},
		{"prepare request not an object", h.Prepare, `{"request":"x","executionName":7}`, `prepare task input: field "executionName" cannot be a JSON number`},
		{"map unknown field", h.Map, `{"queryId":"q1","batchIndex":0,"attempt":1,"batch":0}`, `map task input: unknown field "batch"`},
		{"map wrong type", h.Map, `{"queryId":"q1","batchIndex":"0","attempt":1}`, `map task input: field "batchIndex" cannot be a JSON string`},
		{"map input not an object", h.Map, `[1]`, `map task input: must be a JSON object, not a JSON array`},
		{"reduce unknown field in a map result", h.Reduce, `{"queryId":"q1","mapResults":[{"batchIndex":0,"score":3}]}`, `reduce task input: unknown field "score"`},
		{"reduce failure of the wrong shape", h.Reduce, `{"queryId":"q1","mapResults":[],"failure":{"Error":1}}`, `reduce task input: field "failure.Error" cannot be a JSON number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := invoke(t, tc.fn, tc.payload)
			require.Error(t, err)
			assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
			assert.Equal(t, tc.wantMsg, err.Error())
		})
	}
}
