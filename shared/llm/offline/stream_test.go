package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
)

// The offline model streams each stage's reply in pieces that join to
// the reply Complete gives, and gives up on a cancelled call.
func TestCompleteStream(t *testing.T) {
	for _, req := range modeltest.Requests() {
		t.Run(string(req.Stage), func(t *testing.T) {
			var got []string
			resp, err := offline.New().CompleteStream(context.Background(), req, func(s string) { got = append(got, s) })
			require.NoError(t, err)
			whole, err := offline.New().Complete(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, whole, resp)
			assert.Equal(t, whole.Text, strings.Join(got, ""))
			assert.Greater(t, len(got), 1, "in more than one piece")
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var got []string
	_, err := offline.New().CompleteStream(ctx, modeltest.Requests()[1], func(s string) { got = append(got, s) })
	require.Error(t, err)
	assert.Empty(t, got)
}
