package globalsearch

import (
	"io"
	"log/slog"
	"time"
)

// Engine runs the steps of a search. The in-process search (Search) and the
// Lambda handlers call the same steps, so each rule has one implementation.
type Engine struct {
	Index   Index
	Model   Model
	Runs    Runs
	Prompts Prompts
	// MaxBatches refuses plans with more map batches (0: no limit); the
	// deployed state machine sets it from its history limit (SPEC §8).
	MaxBatches int
	Logger     *slog.Logger
	// Progress, when set, hears of every batch that has finished its map
	// attempts (the CLI's progress line). Calls never overlap and done
	// goes up by one each time.
	Progress func(done, total int)
	Now      func() time.Time
}

// MapAttempts and ReduceAttempts are the attempts per call (SPEC §5.2, §6).
const (
	MapAttempts    = 2
	ReduceAttempts = 2
)

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.NewJSONHandler(io.Discard, nil))
}

func (e *Engine) prompts() Prompts {
	if e.Prompts == (Prompts{}) {
		return DefaultPrompts()
	}
	return e.Prompts
}
