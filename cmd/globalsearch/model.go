package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
)

// modelOptions are the flags that choose and price the model; the rules
// (specs, stages, opening the adapters) are shared/llm/provider's.
type modelOptions struct {
	spec   string
	kinds  modelKindOptions
	stages stageOptions
	// given holds the price and timeout flags given, by the variable each
	// stands for, so that the variables' rules read flags and environment
	// alike (localengine.Lookup).
	given map[string]string
	// envRead is set once resolve has read the environment into priced
	// and timeout.
	envRead bool
	priced  *globalsearch.Prices
	timeout time.Duration
}

// registerGiven registers a flag that stands for variable: checked by
// parse as it is read, so a bad one is named as a flag, and kept in given.
func (o *modelOptions) registerGiven(fs *flag.FlagSet, name, variable, usage string, parse func(string) error) {
	fs.Func(name, usage, func(s string) error {
		if err := parse(s); err != nil {
			return err
		}
		o.given[variable] = s
		return nil
	})
}

func (o *modelOptions) register(fs *flag.FlagSet) {
	o.given = map[string]string{}
	price := func(s string) error { _, err := globalsearch.ParsePrice(s); return err }
	fs.StringVar(&o.spec, "model", provider.Offline, "model: "+provider.Usage)
	o.registerGiven(fs, "price-in", globalsearch.EnvPriceIn, "USD per 1,000 input tokens, to print a cost (default $"+globalsearch.EnvPriceIn+")", price)
	o.registerGiven(fs, "price-out", globalsearch.EnvPriceOut, "USD per 1,000 output tokens, to print a cost (default $"+globalsearch.EnvPriceOut+")", price)
	o.registerGiven(fs, "model-timeout", provider.EnvTimeout, "longest wait for one model call, e.g. 90s (default $"+provider.EnvTimeout+", else "+provider.DefaultTimeout.String()+")",
		func(s string) error { _, err := provider.ParseTimeout(s); return err })
	o.kinds.register(fs)
	o.stages.register(fs)
	for _, p := range []struct{ name, what, variable string }{
		{"map-price-in", "input", globalsearch.EnvMapPriceIn},
		{"map-price-out", "output", globalsearch.EnvMapPriceOut},
		{"reduce-price-in", "input", globalsearch.EnvReducePriceIn},
		{"reduce-price-out", "output", globalsearch.EnvReducePriceOut},
	} {
		stage, _, _ := strings.Cut(p.name, "-")
		o.registerGiven(fs, p.name, p.variable, fmt.Sprintf("USD per 1,000 %s tokens of the %s model (default $%s, else --price-%s)",
			p.what, stage, p.variable, strings.TrimPrefix(p.name, stage+"-price-")), price)
	}
}

// resolve checks the stages' models and the kind flags against them, and
// reads the prices (by globalsearch.PricesFromEnv, one rule for which
// prices pair and which stage falls back) and the timeout, each flag
// standing in for its variable. open calls it; a command that prices
// without opening a model (plan) must call it before cost for the
// environment to count. Calling it again does nothing.
func (o *modelOptions) resolve(env *cliEnv) error {
	if o.envRead {
		return nil
	}
	if err := o.stageSpecs().Check(o.kinds.kind()); err != nil {
		return asUsage(err)
	}
	lookup := localengine.Lookup(o.given, env.lookupEnv)
	prices, err := globalsearch.PricesFromEnv(lookup)
	if err != nil {
		return asUsage(err)
	}
	timeout, err := provider.TimeoutFromEnv(lookup)
	if err != nil {
		return asUsage(err)
	}
	o.priced, o.timeout, o.envRead = prices, timeout, true
	return nil
}

// parseModelSpec is provider.Parse, a bad spec a usageError.
func parseModelSpec(s string) (provider.Spec, error) {
	spec, err := provider.Parse(s)
	return spec, asUsage(err)
}

// providerOptions are the options the flags and env give provider.Open.
func (o *modelOptions) providerOptions(env *cliEnv, spec string) provider.Options {
	return provider.Options{Spec: spec, Kind: o.kinds.kind(), Timeout: o.timeout, LookupEnv: env.lookupEnv}
}

// open builds the model the flags name, each call bounded by the model
// timeout.
func (o *modelOptions) open(ctx context.Context, env *cliEnv) (globalsearch.Model, error) {
	if _, err := parseModelSpec(o.spec); err != nil {
		return nil, err
	}
	if err := o.resolve(env); err != nil {
		return nil, err
	}
	m, err := provider.Open(ctx, o.providerOptions(env, o.spec))
	return m, asUsage(err)
}

// build is the adapter spec names, with no timeout (calibrate counts
// tokens with it).
func (o *modelOptions) build(ctx context.Context, env *cliEnv, spec provider.Spec) (globalsearch.Model, error) {
	m, err := provider.New(ctx, spec, o.providerOptions(env, ""))
	return m, asUsage(err)
}

// stageOptions are the flags that give the map and the reduce stage a
// model of its own (docs/contract.md#stage-models), each falling back to
// --model; their prices are modelOptions.register's.
type stageOptions struct {
	mapSpec, reduceSpec       string
	mapSpecSet, reduceSpecSet bool
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
