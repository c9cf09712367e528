package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// modelOptions are the flags that choose and price the model.
type modelOptions struct {
	spec string
}

func (o *modelOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.spec, "model", "offline", "model: offline")
}

// open builds the model the flags name.
func (o *modelOptions) open(_ context.Context, env *cliEnv) (globalsearch.Model, error) {
	switch o.spec {
	case "offline":
		return nil, fmt.Errorf("offline model not wired yet")
	}
	return nil, &usageError{fmt.Sprintf("unknown --model %q", o.spec)}
}
