package modeltest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// RunStreaming is the suite of a globalsearch.StreamingModel
// (docs/contract.md#answer-stream): for each of the suite's requests,
// CompleteStream answers what Complete answers, its pieces join to the
// reply's text, and a cancelled call gives up with no piece.
func RunStreaming(t *testing.T, newModel func(t *testing.T) globalsearch.StreamingModel) {
	for _, req := range Requests() {
		t.Run(string(req.Stage)+" streams what Complete answers", func(t *testing.T) {
			var pieces []string
			streamed, err := newModel(t).CompleteStream(context.Background(), req, func(s string) { pieces = append(pieces, s) })
			require.NoError(t, err)
			whole, err := newModel(t).Complete(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, whole, streamed)
			assert.Equal(t, streamed.Text, strings.Join(pieces, ""), "the pieces are the reply")
			assert.NotEmpty(t, pieces)
		})
		t.Run(string(req.Stage)+" gives up on a cancelled stream", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var pieces []string
			resp, err := newModel(t).CompleteStream(ctx, req, func(s string) { pieces = append(pieces, s) })
			require.Error(t, err)
			assert.Empty(t, resp.Text)
			assert.Empty(t, pieces)
		})
	}
}
