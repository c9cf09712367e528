package globalsearch

import (
	"io"
	"log/slog"
	"time"
)

// Engine runs the steps of a search. The in-process search (Search) and the
// Lambda handlers call the same steps, so each rule has one implementation.
type Engine struct {
	Index Index
	// Model is the map model, and the reduce model when ReduceModel is nil
	// (docs/contract.md#stage-models).
	Model       Model
	ReduceModel Model
	// RatingModel makes the rating calls of dynamic selection
	// (docs/contract.md#dynamic-selection); nil means Model.
	RatingModel Model
	// RateInSteps leaves a dynamic selection's rounds to the state
	// machine (docs/contract.md#dynamic-selection): prepare starts the
	// run and saves the first round, RateBatch and SelectNext take it on.
	RateInSteps bool
	// MaxRatingBatches and MaxRatingRounds refuse a dynamic selection
	// that could rate more batches, or more rounds, than the state
	// machine's history holds (0: no limit; docs/contract.md#plan-limits).
	MaxRatingBatches int
	MaxRatingRounds  int
	// MaxReduceGroups and MaxReduceRounds refuse a tree plan whose
	// worst-case reduce groups (beside a selection's rating batches), or
	// intermediate rounds, could pass what the state machine's history
	// holds (0: no limit; docs/contract.md#plan-limits).
	MaxReduceGroups int
	MaxReduceRounds int
	Runs            Runs
	// Prices, when set, price the plan and the result per stage and let a
	// request set maxCostUsd (docs/contract.md#cost).
	Prices *Prices
	// Prompts are the prompts of every step (docs/contract.md#custom-prompts);
	// a zero part is the project's own.
	Prompts Prompts
	// Cache, when set, keeps map answers across runs (docs/contract.md#map-cache); a
	// request with cache false bypasses it. ModelID names the map model in
	// the cache key, so answers of one model never serve another: it must
	// be set whenever Cache is.
	Cache   MapCache
	ModelID string
	// Standing keeps the records of standing questions
	// (docs/contract.md#standing-questions); nil uses Runs when it keeps
	// them too.
	Standing Standing
	// MaxBatches refuses plans with more map batches (0: no limit); the
	// deployed state machine sets it from its history limit (docs/contract.md#plan-limits).
	MaxBatches int
	// MaxMapTextBytes caps the bytes of map text a plan may build, since
	// prepare holds them all in memory (docs/contract.md#plan-limits); 0 means
	// DefaultMaxMapTextBytes. With MaxBatches set, the bound those batches
	// imply applies too, whichever is lower.
	MaxMapTextBytes int64
	// Quota is the map model's quota (docs/contract.md#quota): when it is
	// known, a plan's map concurrency is what it sustains rather than the
	// request's default. MapMaxConcurrency caps the map concurrency of
	// every plan (the template's MapMaxConcurrency; 0: no cap).
	Quota             Quota
	MapMaxConcurrency int
	Logger            *slog.Logger
	// Progress, when set, hears of every batch that has finished its map
	// attempts (the CLI's progress line). Calls never overlap and done
	// goes up by one each time.
	Progress func(done, total int)
	// AutoConcurrency, when set, runs Search's map calls under an adaptive
	// limit instead of the request's mapConcurrency
	// (docs/contract.md#auto-concurrency); the steps the state machine runs
	// ignore it.
	AutoConcurrency *AutoConcurrency
	Now             func() time.Time

	// autoReport is what AutoConcurrency did in the run this engine
	// reduces: Search sets it on a copy of the engine.
	autoReport *AutoConcurrencyReport
}

// DefaultMaxMapTextBytes is the map-text ceiling when none is configured:
// 256 MiB is about 9,000 full batches at the default map budget, and
// prepare's peak (map texts, then batch contents) stays well inside the
// prepare function's 1,769 MB.
const DefaultMaxMapTextBytes int64 = 256 << 20

// MapAttempts and ReduceAttempts are the attempts per call (docs/contract.md#map-calls, docs/contract.md#reduce).
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

func (e *Engine) reduceModel() Model {
	if e.ReduceModel != nil {
		return e.ReduceModel
	}
	return e.Model
}

func (e *Engine) prompts() Prompts { return e.Prompts.orDefault() }
