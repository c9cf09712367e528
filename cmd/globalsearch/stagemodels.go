package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// stageOptions are the flags that give the map and the reduce stage a
// model and prices of their own (docs/contract.md#stage-models); each
// falls back to --model and to --price-in/--price-out.
type stageOptions struct {
	mapSpec, reduceSpec                string
	mapIn, mapOut, reduceIn, reduceOut priceFlag
	mapSpecSet, reduceSpecSet          bool
}

func (s *stageOptions) register(fs *flag.FlagSet) {
	fs.Func("map-model", "the map stage's model, often a cheaper one (default --model): "+provider.Usage, func(v string) error {
		s.mapSpec, s.mapSpecSet = v, true
		return nil
	})
	fs.Func("reduce-model", "the reduce stage's model (default --model): "+provider.Usage, func(v string) error {
		s.reduceSpec, s.reduceSpecSet = v, true
		return nil
	})
	for _, p := range []struct {
		flag       *priceFlag
		name, what string
		env        string
	}{
		{&s.mapIn, "map-price-in", "input", globalsearch.EnvMapPriceIn},
		{&s.mapOut, "map-price-out", "output", globalsearch.EnvMapPriceOut},
		{&s.reduceIn, "reduce-price-in", "input", globalsearch.EnvReducePriceIn},
		{&s.reduceOut, "reduce-price-out", "output", globalsearch.EnvReducePriceOut},
	} {
		stage, _, _ := strings.Cut(p.name, "-")
		fs.Var(p.flag, p.name, fmt.Sprintf("USD per 1,000 %s tokens of the %s model (default $%s, else --price-%s)", p.what, stage, p.env, strings.TrimPrefix(p.name, stage+"-price-")))
	}
}

// stageSpecs are the stage flags as provider.Stages.
func (o *modelOptions) stageSpecs() provider.Stages {
	s := provider.Stages{Model: o.spec}
	if o.stages.mapSpecSet {
		s.Map = &o.stages.mapSpec
	}
	if o.stages.reduceSpecSet {
		s.Reduce = &o.stages.reduceSpec
	}
	return s
}

// mapSpec is the --model value the map stage calls.
func (o *modelOptions) mapSpec() string { return o.stageSpecs().MapSpec() }

// prices are the stages' prices (docs/contract.md#cost) by
// globalsearch.PricesFromEnv's rule, the flags standing in for the
// variables they name; nil when none is given. resolve must have run.
func (o *modelOptions) prices(env *cliEnv) (*globalsearch.Prices, error) {
	flags := map[string]*priceFlag{
		globalsearch.EnvPriceIn: &o.priceIn, globalsearch.EnvPriceOut: &o.priceOut,
		globalsearch.EnvMapPriceIn: &o.stages.mapIn, globalsearch.EnvMapPriceOut: &o.stages.mapOut,
		globalsearch.EnvReducePriceIn: &o.stages.reduceIn, globalsearch.EnvReducePriceOut: &o.stages.reduceOut,
	}
	prices, err := globalsearch.PricesFromEnv(func(name string) (string, bool) {
		if f := flags[name]; f != nil && f.Given {
			return f.String(), true
		}
		if name == globalsearch.EnvPriceIn || name == globalsearch.EnvPriceOut {
			return "", false // resolve has read these already
		}
		return env.lookupEnv(name)
	})
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	return prices, nil
}

// openStages opens each stage's model (provider.OpenStages); a stage with
// --model's own spec shares the one model.
func (o *modelOptions) openStages(ctx context.Context, env *cliEnv) (mapModel, reduceModel globalsearch.Model, err error) {
	if err := o.resolve(env); err != nil {
		return nil, nil, err
	}
	mapModel, reduceModel, err = provider.OpenStages(ctx, o.stageSpecs(), o.providerOptions(env, ""))
	return mapModel, reduceModel, asUsage(err)
}
