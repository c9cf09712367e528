package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// engine wires the index, the model and an in-memory runs store.
func (f *searchFlags) engine(ctx context.Context, env *cliEnv, withModel bool) (*globalsearch.Engine, globalsearch.Params, error) {
	f.index.namespace = f.namespace
	if err := f.index.check(); err != nil {
		return nil, globalsearch.Params{}, err
	}
	var (
		idx           globalsearch.Index
		fileNamespace = f.index.readNamespace()
		err           error
	)
	// An index file names the namespace a request defaults to, so it is
	// read first; a GraphRAG folder or a table is read only once the
	// request is known to be valid.
	if f.index.file != "" {
		if idx, fileNamespace, err = f.index.open(ctx, env); err != nil {
			return nil, globalsearch.Params{}, err
		}
	}
	p, err := f.params(env, fileNamespace)
	if err != nil {
		return nil, globalsearch.Params{}, err
	}
	if idx == nil {
		if idx, _, err = f.index.open(ctx, env); err != nil {
			return nil, globalsearch.Params{}, err
		}
	}
	e, err := f.newEngine(ctx, env, idx, withModel)
	if err != nil {
		return nil, globalsearch.Params{}, err
	}
	return e, p, nil
}

// newEngine is the in-process engine every command runs (run, plan, mcp):
// idx, an in-memory runs store, the prompts of --prompts, the map-text
// ceiling, -v logging and, with a model, the model, its id and the
// map-answer cache.
func (f *searchFlags) newEngine(ctx context.Context, env *cliEnv, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
	prompts, err := f.prompts.load()
	if err != nil {
		return nil, err
	}
	e := &globalsearch.Engine{Index: idx, Runs: memstore.New(), Prompts: prompts, MaxMapTextBytes: min(f.maxMapTextMB, 1<<40) << 20}
	// The map model's id picks the calibrated rates and the quota's output
	// weight even where no model is called (plan), so that plan packs and
	// sizes as run does: the map calls are what is packed.
	e.ModelID = strings.TrimSpace(f.model.mapSpec())
	if f.verbose {
		e.Logger = slog.New(slog.NewJSONHandler(env.stderr, nil))
	}
	if f.autoConcurrency {
		e.AutoConcurrency = &globalsearch.AutoConcurrency{}
	}
	if f.standing != "" {
		if e.Standing, err = f.cache.standing(env); err != nil {
			return nil, err
		}
	}
	// Prices hold maxCostUsd in plan too, which opens no model.
	if err := f.model.resolve(env); err != nil {
		return nil, err
	}
	if e.Prices, err = f.model.prices(env); err != nil {
		return nil, err
	}
	if withModel {
		if e.Model, e.ReduceModel, err = f.model.openStages(ctx, env); err != nil {
			return nil, err
		}
		if e.Cache, err = f.cache.open(env); err != nil {
			return nil, err
		}
		// The cache keys by the map model (docs/contract.md#map-cache).
		e.ModelID = strings.TrimSpace(f.model.mapSpec())
		if e.ModelID == providerOffline {
			// Its answers change with its rules, which its name does not say.
			e.ModelID = offline.CacheID
		}
		if f.ratingModel != "" {
			rating := f.model
			rating.spec = f.ratingModel
			if e.RatingModel, err = rating.open(ctx, env); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}
