package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
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

// prices are the stages' prices (docs/contract.md#cost), nil when none is
// given, as resolve read them.
func (o *modelOptions) prices(env *cliEnv) (*globalsearch.Prices, error) {
	if err := o.resolve(env); err != nil {
		return nil, err
	}
	return o.priced, nil
}

// readPrices applies globalsearch.PricesFromEnv's rule once to the price
// flags and the environment, each flag standing in for the variable it
// names: one rule for which prices pair and which stage falls back.
func (o *modelOptions) readPrices(env *cliEnv) (*globalsearch.Prices, error) {
	given := map[string]string{}
	for name, f := range map[string]*priceFlag{
		globalsearch.EnvPriceIn: &o.priceIn, globalsearch.EnvPriceOut: &o.priceOut,
		globalsearch.EnvMapPriceIn: &o.stages.mapIn, globalsearch.EnvMapPriceOut: &o.stages.mapOut,
		globalsearch.EnvReducePriceIn: &o.stages.reduceIn, globalsearch.EnvReducePriceOut: &o.stages.reduceOut,
	} {
		if f.set {
			given[name] = f.String()
		}
	}
	prices, err := globalsearch.PricesFromEnv(localengine.Lookup(given, env.lookupEnv))
	return prices, asUsage(err)
}
