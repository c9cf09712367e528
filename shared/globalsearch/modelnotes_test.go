package globalsearch_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// notingModel is a model that fell back to a weaker output format.
type notingModel struct {
	*fakeModel
	notes []string
}

func (m notingModel) Notes() []string { return m.notes }

// TestModelNotesReachTheResultAndTheLog: a model's note (an OpenAI
// adapter's structured-output fallback) is in the result's diagnostics and
// in the -v log, once each though the model serves both stages
// (docs/contract.md#structured-output).
func TestModelNotesReachTheResultAndTheLog(t *testing.T) {
	note := "model llama3.1 at http://x/v1/chat/completions refused response_format json_schema: its calls asked for json_object instead"
	tests := []struct {
		name  string
		notes []string
	}{
		{"a fallback", []string{note}},
		{"none", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := notingModel{&fakeModel{complete: answerEverything}, tc.notes}
			e, _ := newEngine(t, leafNamespace(2), gs.TimeoutModel{Model: m, Name: "openai:llama3.1"})
			e.ReduceModel = m
			var log bytes.Buffer
			e.Logger = slog.New(slog.NewJSONHandler(&log, nil))
			res, err := e.Search(context.Background(), oneBatchPerSummary(t, "q?", nil))
			require.NoError(t, err)
			assert.Equal(t, tc.notes, res.Diagnostics.Notes)
			if tc.notes == nil {
				assert.NotContains(t, log.String(), `"msg":"model note"`)
				return
			}
			assert.Equal(t, 1, bytes.Count(log.Bytes(), []byte(`"msg":"model note"`)))
			assert.Contains(t, log.String(), `"level":"WARN"`)
			assert.Contains(t, log.String(), "refused response_format json_schema")
		})
	}
}
