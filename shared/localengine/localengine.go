// Package localengine assembles the in-process globalsearch.Engine the CLI's
// commands run (run, plan, calibrate, mcp, serve): the index, an in-memory
// runs store, the prompts, each stage's model, the rating model, the map
// cache, the standing store and the prices. It is wiring, like
// shared/llm/provider: the mains' choice of adapters, so cmd holds only
// the flags that fill Options.
package localengine

import (
	"context"
	"log/slog"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// Options are what New assembles an engine from.
type Options struct {
	Index   globalsearch.Index
	Prompts globalsearch.Prompts
	// MaxMapTextBytes caps the map text a plan may build; 0 is none.
	MaxMapTextBytes int64
	// Stages name each stage's model. The map stage's spec is the
	// engine's ModelID even when no model is opened.
	Stages provider.Stages
	// Provider opens the models (kind, timeout, credentials); its Spec is
	// ignored, Stages and RatingSpec naming the models.
	Provider provider.Options
	// CallModels opens the stages' models and the rating model; without
	// it (plan, calibrate) the engine packs and prices but calls nothing.
	CallModels bool
	// RatingSpec names the model of dynamic selection's rating calls; ""
	// is none.
	RatingSpec string
	// Cache is the map-answer cache, kept only with CallModels, since it
	// keys by the opened map model (docs/contract.md#map-cache).
	Cache    globalsearch.MapCache
	Standing globalsearch.Standing
	// Prices price the plan and the result and hold maxCostUsd, in plan
	// too (docs/contract.md#cost); nil is no price.
	Prices          *globalsearch.Prices
	Logger          *slog.Logger
	AutoConcurrency bool
}

// New is the engine o describes. An error of invalid input (a bad spec, a
// missing credential) keeps globalsearch.KindInvalidInput.
func New(ctx context.Context, o Options) (*globalsearch.Engine, error) {
	e := &globalsearch.Engine{
		Index: o.Index, Runs: memstore.New(), Prompts: o.Prompts, MaxMapTextBytes: o.MaxMapTextBytes,
		Standing: o.Standing, Prices: o.Prices, Logger: o.Logger,
		// The map model's id picks the calibrated rates and the quota's
		// output weight even where no model is called (plan), so that
		// plan packs and sizes as run does: the map calls are what is
		// packed.
		ModelID: strings.TrimSpace(o.Stages.MapSpec()),
	}
	if o.AutoConcurrency {
		e.AutoConcurrency = &globalsearch.AutoConcurrency{}
	}
	if !o.CallModels {
		return e, nil
	}
	var err error
	if e.Model, e.ReduceModel, err = provider.OpenStages(ctx, o.Stages, o.Provider); err != nil {
		return nil, err
	}
	e.Cache = o.Cache
	if e.ModelID == provider.Offline {
		// The offline model's answers change with its rules, which its
		// name does not say, and the cache keys by the model id.
		e.ModelID = offline.CacheID
	}
	if o.RatingSpec != "" {
		rating := o.Provider
		rating.Spec = o.RatingSpec
		if e.RatingModel, err = provider.Open(ctx, rating); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Lookup reads given before lookupEnv: given holds the flags by the
// variable each stands for, so a domain rule that reads variables
// (globalsearch.PricesFromEnv, QuotaFromEnv) is applied once to flags and
// environment alike, a flag winning over its variable.
func Lookup(given map[string]string, lookupEnv func(string) (string, bool)) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := given[name]; ok {
			return v, true
		}
		if lookupEnv == nil {
			return "", false
		}
		return lookupEnv(name)
	}
}
