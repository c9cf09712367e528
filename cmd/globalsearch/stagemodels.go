package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
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
	fs.Func("map-model", "the map stage's model, often a cheaper one (default --model): "+modelUsage, func(v string) error {
		s.mapSpec, s.mapSpecSet = v, true
		return nil
	})
	fs.Func("reduce-model", "the reduce stage's model (default --model): "+modelUsage, func(v string) error {
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

// mapSpec and reduceSpec are the --model values each stage calls.
func (o *modelOptions) mapSpec() string {
	if o.stages.mapSpecSet {
		return o.stages.mapSpec
	}
	return o.spec
}

func (o *modelOptions) reduceSpec() string {
	if o.stages.reduceSpecSet {
		return o.stages.reduceSpec
	}
	return o.spec
}

// checkStageSpecs parses the stages' models, so that plan and mcp refuse a
// bad one before any call as run does.
func (o *modelOptions) checkStageSpecs() error {
	for _, spec := range []string{o.mapSpec(), o.reduceSpec()} {
		if _, err := parseModelSpec(spec); err != nil {
			return err
		}
	}
	return nil
}

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
		if f := flags[name]; f != nil && f.set {
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

// openStages opens each stage's model; a stage with --model's own spec
// shares the one model.
func (o *modelOptions) openStages(ctx context.Context, env *cliEnv) (mapModel, reduceModel globalsearch.Model, err error) {
	if mapModel, err = o.openSpec(ctx, env, o.mapSpec()); err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(o.reduceSpec()) == strings.TrimSpace(o.mapSpec()) {
		return mapModel, nil, nil
	}
	if reduceModel, err = o.openSpec(ctx, env, o.reduceSpec()); err != nil {
		return nil, nil, err
	}
	return mapModel, reduceModel, nil
}
