package globalsearch

import (
	"context"
	"log/slog"
	"slices"
)

// ModelNoter is a model that can say how its calls were made when that
// differs from what was asked: an OpenAI-compatible server that refused
// json_schema and got json_object (docs/contract.md#structured-output).
type ModelNoter interface {
	Notes() []string
}

// modelNotes are m's notes, none when it keeps none.
func modelNotes(m Model) []string {
	if n, ok := m.(ModelNoter); ok {
		return n.Notes()
	}
	return nil
}

// modelNotes gathers the notes of every model the run called, once each,
// and logs each one (the `-v` log): a fallback that changed how the
// output was asked for is never silent.
func (e *Engine) modelNotes(ctx context.Context, queryID string) []string {
	var notes []string
	for _, m := range []Model{e.RatingModel, e.Model, e.ReduceModel} {
		for _, n := range modelNotes(m) {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	for _, n := range notes {
		e.logger().LogAttrs(ctx, slog.LevelWarn, "model note", slog.String("queryId", queryID), slog.String("note", n))
	}
	return notes
}
