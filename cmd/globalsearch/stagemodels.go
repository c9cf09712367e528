package main

import (
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

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
