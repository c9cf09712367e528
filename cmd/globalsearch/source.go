package main

import (
	"context"
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// indexOptions are the flags that choose where the index is read from.
type indexOptions struct {
	file string
}

func (o *indexOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.file, "index", "", "index file (JSON) to search")
}

// open returns the index and, for an index file, the namespace it holds
// (the default namespace of a search over it).
func (o *indexOptions) open(_ context.Context, _ *cliEnv) (globalsearch.Index, string, error) {
	if o.file == "" {
		return nil, "", &usageError{"--index is required"}
	}
	s, f, err := memstore.Open(o.file)
	if err != nil {
		return nil, "", err
	}
	return s, f.Namespace, nil
}
