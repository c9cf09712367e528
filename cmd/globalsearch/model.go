package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// Environment variables the model flags read.
const (
	envPriceIn  = "GRAPHRAG_PRICE_IN"
	envPriceOut = "GRAPHRAG_PRICE_OUT"
)

// providerOffline is the offline model's --model, as wiring tests it.
const providerOffline = provider.Offline

// modelOptions are the flags that choose and price the model; the rules
// (specs, stages, opening the adapters) are shared/llm/provider's.
type modelOptions struct {
	spec              string
	priceIn, priceOut priceFlag
	timeout           cmdutil.Duration
	kinds             modelKindOptions
	stages            stageOptions
	// envRead is set once resolve has applied GRAPHRAG_PRICE_IN/OUT.
	envRead bool
}

// priceFlag is --price-in and its kin: the stage flags name it too.
type priceFlag = cmdutil.Price

func (o *modelOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.spec, "model", provider.Offline, "model: "+provider.Usage)
	fs.Var(&o.priceIn, "price-in", "USD per 1,000 input tokens, to print a cost (default $"+envPriceIn+")")
	fs.Var(&o.priceOut, "price-out", "USD per 1,000 output tokens, to print a cost (default $"+envPriceOut+")")
	o.timeout.Parse = provider.ParseTimeout
	fs.Var(&o.timeout, "model-timeout", "longest wait for one model call, e.g. 90s (default $"+provider.EnvTimeout+", else "+provider.DefaultTimeout.String()+")")
	o.kinds.register(fs)
	o.stages.register(fs)
}

// resolve checks the stages' models and the kind flags against them, and
// fills the prices and the timeout not given as flags from the
// environment, checking the prices come as a pair. open calls it; a
// command that prices without opening a model (plan) must call it before
// cost for the environment to count. Calling it again does nothing.
func (o *modelOptions) resolve(env *cliEnv) error {
	if o.envRead {
		return nil
	}
	if err := o.stageSpecs().Check(o.kinds.kind()); err != nil {
		return asUsage(err)
	}
	for _, p := range []struct {
		flag *priceFlag
		name string
	}{{&o.priceIn, envPriceIn}, {&o.priceOut, envPriceOut}} {
		if p.flag.Given {
			continue
		}
		v, ok := env.lookupEnv(p.name)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		// The flag's own rule, so a variable reads as its flag would.
		if err := p.flag.Set(v); err != nil {
			return &usageError{fmt.Sprintf("%s: %v", p.name, err)}
		}
	}
	if !o.timeout.Given {
		d, err := provider.TimeoutFromEnv(env.lookupEnv)
		if err != nil {
			return asUsage(err)
		}
		o.timeout.D = d
	}
	o.envRead = true
	// One price alone would print a cost that silently leaves out half the
	// bill.
	if o.priceIn.Given != o.priceOut.Given {
		return &usageError{"--price-in and --price-out (or " + envPriceIn + " and " + envPriceOut + ") go together: give both or neither"}
	}
	return nil
}

// parseModelSpec is provider.Parse, a bad spec a usageError.
func parseModelSpec(s string) (provider.Spec, error) {
	spec, err := provider.Parse(s)
	return spec, asUsage(err)
}

// providerOptions are the options the flags and env give provider.Open.
func (o *modelOptions) providerOptions(env *cliEnv, spec string) provider.Options {
	return provider.Options{Spec: spec, Kind: o.kinds.kind(), Timeout: o.timeout.D, LookupEnv: env.lookupEnv}
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

// asUsage makes the invalid input of the shared packages (a bad spec, a
// missing credential or region) a usageError, as cmd's tests and
// callers test for; it exits 2 either way.
func asUsage(err error) error {
	if err != nil && globalsearch.KindOf(err) == globalsearch.KindInvalidInput {
		return &usageError{err.Error()}
	}
	return err
}
