package main

import (
	"context"
	"flag"
	"strconv"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// The providers --model names, as the other commands test them.
const (
	providerOffline = provider.Offline
	providerBedrock = provider.Bedrock
)

// modelOptions are the flags that choose and price the model; the rules
// (specs, stages, opening the adapters) are shared/llm/provider's.
type modelOptions struct {
	spec              string
	priceIn, priceOut priceFlag
	timeout           durationFlag
	kinds             modelKindOptions
	stages            stageOptions
	// envRead is set once resolve has read the environment into priced
	// and timeout.
	envRead bool
	priced  *globalsearch.Prices
}

// priceFlag is a USD price per 1,000 tokens; set says whether it was given,
// so "no price" and "free" stay apart.
type priceFlag struct {
	usd float64
	set bool
}

func (p *priceFlag) String() string {
	if p == nil || !p.set {
		return ""
	}
	return strconv.FormatFloat(p.usd, 'g', -1, 64)
}

// Set parses by the rule of docs/contract.md#cost.
func (p *priceFlag) Set(s string) error {
	v, err := globalsearch.ParsePrice(s)
	if err != nil {
		return err
	}
	p.usd, p.set = v, true
	return nil
}

// durationFlag is a positive duration; set says whether it was given.
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := provider.ParseTimeout(s)
	if err != nil {
		return err
	}
	f.d, f.set = d, true
	return nil
}

func (o *modelOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.spec, "model", provider.Offline, "model: "+provider.Usage)
	fs.Var(&o.priceIn, "price-in", "USD per 1,000 input tokens, to print a cost (default $"+globalsearch.EnvPriceIn+")")
	fs.Var(&o.priceOut, "price-out", "USD per 1,000 output tokens, to print a cost (default $"+globalsearch.EnvPriceOut+")")
	fs.Var(&o.timeout, "model-timeout", "longest wait for one model call, e.g. 90s (default $"+provider.EnvTimeout+", else "+provider.DefaultTimeout.String()+")")
	o.kinds.register(fs)
	o.stages.register(fs)
}

// resolve checks the stages' models and the kind flags against them, and
// reads the prices (prices) and the timeout, each flag standing in for
// its variable. open calls it; a command that prices without opening a
// model (plan) must call it before cost for the environment to count.
// Calling it again does nothing.
func (o *modelOptions) resolve(env *cliEnv) error {
	if o.envRead {
		return nil
	}
	if err := o.stageSpecs().Check(o.kinds.kind()); err != nil {
		return asUsage(err)
	}
	prices, err := o.readPrices(env)
	if err != nil {
		return err
	}
	if !o.timeout.set {
		d, err := provider.TimeoutFromEnv(env.lookupEnv)
		if err != nil {
			return asUsage(err)
		}
		o.timeout.d = d
	}
	o.priced, o.envRead = prices, true
	return nil
}

// modelSpec is a parsed --model, as calibrate and mcp test its provider.
type modelSpec struct {
	provider string
	spec     provider.Spec
}

// parseModelSpec is provider.Parse, a bad spec a usageError.
func parseModelSpec(s string) (modelSpec, error) {
	spec, err := provider.Parse(s)
	if err != nil {
		return modelSpec{}, asUsage(err)
	}
	return modelSpec{provider: spec.Provider, spec: spec}, nil
}

// providerOptions are the options the flags and env give provider.Open.
func (o *modelOptions) providerOptions(env *cliEnv, spec string) provider.Options {
	return provider.Options{Spec: spec, Kind: o.kinds.kind(), Timeout: o.timeout.d, LookupEnv: env.lookupEnv}
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
func (o *modelOptions) build(ctx context.Context, env *cliEnv, spec modelSpec) (globalsearch.Model, error) {
	m, err := provider.New(ctx, spec.spec, o.providerOptions(env, ""))
	return m, asUsage(err)
}

// asUsage makes the invalid input of the shared packages (a bad spec, a
// missing credential or region) a usageError, as cmd's tests and
// callers test for; it exits 2 either way.
func asUsage(err error) error {
	if err != nil && globalsearch.KindOf(err) == globalsearch.KindInvalidInput {
		return &usageError{err.Error()}
	}
	return err
}
