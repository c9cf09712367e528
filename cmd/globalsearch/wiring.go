package main

import (
	"context"
	"log/slog"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
)

// engine wires the index, the model and an in-memory runs store.
func (f *searchFlags) engine(ctx context.Context, env *cliEnv, withModel bool) (*globalsearch.Engine, globalsearch.Params, error) {
	f.index.namespace, f.index.searchOnly = f.namespace, true
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

// newEngine is the in-process engine every command runs (run, plan, mcp,
// serve): the flags and env as localengine.Options; with a model, the
// models, the rating model and the map-answer cache.
func (f *searchFlags) newEngine(ctx context.Context, env *cliEnv, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
	o := localengine.Options{Index: idx, MaxMapTextBytes: min(f.maxMapTextMB, 1<<40) << 20, Stages: f.model.stageSpecs(),
		CallModels: withModel, RatingSpec: f.ratingModel, AutoConcurrency: f.autoConcurrency}
	var err error
	if o.Prompts, err = f.prompts.load(); err != nil {
		return nil, err
	}
	if f.verbose {
		o.Logger = slog.New(slog.NewJSONHandler(env.stderr, nil))
	}
	if f.standing != "" {
		if o.Standing, err = f.cache.standing(env); err != nil {
			return nil, err
		}
	}
	// Prices hold maxCostUsd in plan too, which opens no model; resolve
	// also checks the stages and fills the timeout Provider carries.
	if o.Prices, err = f.model.prices(env); err != nil {
		return nil, err
	}
	o.Provider = f.model.providerOptions(env, "")
	if withModel {
		if o.Cache, err = f.cache.open(env); err != nil {
			return nil, err
		}
	}
	e, err := localengine.New(ctx, o)
	return e, asUsage(err)
}
