package offline

import (
	"context"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.StreamingModel = (*Model)(nil)

// CompleteStream is Complete with the reply passed on a word at a time, as
// a model server streams one (docs/contract.md#answer-stream): the offline
// model writes its answer whole, so only the pieces are a stream's.
func (m *Model) CompleteStream(ctx context.Context, req globalsearch.ModelRequest, onText func(string)) (globalsearch.ModelResponse, error) {
	resp, err := m.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	for _, piece := range pieces(resp.Text) {
		if err := ctx.Err(); err != nil {
			return globalsearch.ModelResponse{}, err
		}
		onText(piece)
	}
	return resp, nil
}

// pieces cuts text after each space, so that every piece is a word and
// the blank after it and the pieces join back to text.
func pieces(text string) []string {
	return strings.SplitAfter(text, " ")
}
