package workflow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// The deployed prepare holds no model, so it refuses a dynamic selection
// as invalid input and records the run failed
// (docs/contract.md#dynamic-selection); the state machine's Catch ends the
// execution on that named error as on any other invalid input.
func TestPrepareRefusesDynamicSelectionWithoutAModel(t *testing.T) {
	h, s := fixture(t, nil)
	_, err := invoke(t, h.Prepare, `{"request":{"query":"x","queryId":"dyn","selection":"dynamic"}}`)
	require.Error(t, err)
	assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
	assert.Contains(t, err.Error(), `selection "dynamic" needs a model to rate communities`)
	res, err := s.Result(context.Background(), "dyn")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
}
