package provider

import (
	"context"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Stages names the model of each stage (docs/contract.md#stage-models):
// the map and the reduce stage each call Model unless they name their own.
type Stages struct {
	Model       string
	Map, Reduce *string // nil: the stage calls Model
}

// MapSpec is the spec the map stage calls.
func (s Stages) MapSpec() string {
	if s.Map != nil {
		return *s.Map
	}
	return s.Model
}

// ReduceSpec is the spec the reduce stage calls.
func (s Stages) ReduceSpec() string {
	if s.Reduce != nil {
		return *s.Reduce
	}
	return s.Model
}

// Check parses the stages' specs and checks k against them, so that a
// command that opens no model (plan) refuses a bad one before any call as
// run does. An option of k need apply to the model of one stage only.
func (s Stages) Check(k Kind) error {
	for _, spec := range []string{s.MapSpec(), s.ReduceSpec()} {
		if _, err := Parse(spec); err != nil {
			return err
		}
	}
	if err := k.Check(s.MapSpec()); err != nil && k.Check(s.ReduceSpec()) != nil {
		return err
	}
	return nil
}

// OpenStages opens each stage's model with o (o.Spec is not read); a
// reduce stage with the map stage's spec shares its model, and reduce is
// then nil.
func OpenStages(ctx context.Context, s Stages, o Options) (mapModel, reduceModel globalsearch.Model, err error) {
	o.Spec = s.MapSpec()
	if mapModel, err = Open(ctx, o); err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(s.ReduceSpec()) == strings.TrimSpace(s.MapSpec()) {
		return mapModel, nil, nil
	}
	o.Spec = s.ReduceSpec()
	if reduceModel, err = Open(ctx, o); err != nil {
		return nil, nil, err
	}
	return mapModel, reduceModel, nil
}
