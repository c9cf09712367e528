package globalsearch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// PlanReport.WriteJSON streams the batches but prints exactly what one
// indented encoder (the CLI's writeJSON) prints for the whole plan.
func TestPlanReportWriteJSONMatchesEncoder(t *testing.T) {
	batch := func(ids []string, content string) globalsearch.PlanBatch {
		return globalsearch.PlanBatch{CommunityIDs: ids, EstimatedTokens: len(content), Content: content}
	}
	tests := []struct {
		name    string
		batches []globalsearch.PlanBatch
	}{
		{"no batch", nil},
		{"empty list", []globalsearch.PlanBatch{}},
		{"one batch", []globalsearch.PlanBatch{batch([]string{"c1"}, "[Community ID: c1 | summary part 1]\nA <b> & \"quoted\" 中文\ttab")}},
		{"several batches", []globalsearch.PlanBatch{batch([]string{"c1", "c2"}, "one\ntwo"), batch(nil, ""), batch([]string{}, "\u2028 \x01")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := globalsearch.PlanReport{SummaryCount: 2, BatchCount: len(tc.batches), MapSkeleton: "Question: <q> & \"x\"\n",
				ShuffleSeed: -7, IndexNotes: globalsearch.IndexNotes{AvailableLevels: []int{0, 1}, AvailableNamespaces: []string{"a"}}, Batches: tc.batches}
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(out))
			require.NoError(t, out.WriteJSON(&got))
			assert.Equal(t, want.String(), got.String())
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A failed write is reported, not lost in the buffer.
func TestPlanReportWriteJSONReportsWriteError(t *testing.T) {
	out := globalsearch.PlanReport{Batches: []globalsearch.PlanBatch{{CommunityIDs: []string{"c1"}, Content: "text"}}}
	assert.EqualError(t, out.WriteJSON(failingWriter{}), "disk full")
}
