package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// writePlanJSON streams the batches but prints exactly what writeJSON
// prints for the whole plan.
func TestWritePlanJSONMatchesWriteJSON(t *testing.T) {
	batch := func(ids []string, content string) plannedBatch {
		return plannedBatch{CommunityIDs: ids, EstimatedTokens: len(content), Content: content}
	}
	tests := []struct {
		name    string
		batches []plannedBatch
	}{
		{"no batch", nil},
		{"empty list", []plannedBatch{}},
		{"one batch", []plannedBatch{batch([]string{"c1"}, "[Community ID: c1 | summary part 1]\nA <b> & \"quoted\" 中文\ttab")}},
		{"several batches", []plannedBatch{batch([]string{"c1", "c2"}, "one\ntwo"), batch(nil, ""), batch([]string{}, "\u2028 \x01")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := planOutput{SummaryCount: 2, BatchCount: len(tc.batches), MapSkeleton: "Question: <q> & \"x\"\n",
				ShuffleSeed: -7, IndexNotes: globalsearch.IndexNotes{AvailableLevels: []int{0, 1}, AvailableNamespaces: []string{"a"}}, Batches: tc.batches}
			var want, got bytes.Buffer
			require.NoError(t, writeJSON(&want, out))
			require.NoError(t, writePlanJSON(&got, out))
			assert.Equal(t, want.String(), got.String())
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A failed write is reported, not lost in the buffer.
func TestWritePlanJSONReportsWriteError(t *testing.T) {
	out := planOutput{Batches: []plannedBatch{{CommunityIDs: []string{"c1"}, Content: "text"}}}
	assert.EqualError(t, writePlanJSON(failingWriter{}, out), "disk full")
}
