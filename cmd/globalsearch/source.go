package main

import (
	"context"
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// indexOptions are the flags that choose where the index is read from.
type indexOptions struct {
	file  string
	table string
}

func (o *indexOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.file, "index", "", "index file (JSON) to search")
	fs.StringVar(&o.table, "table", "", "DynamoDB index table to search instead of --index (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)")
}

// open returns the index and the namespace a search defaults to: the one an
// index file holds, or SPEC §2's default for a table, which holds many.
func (o *indexOptions) open(ctx context.Context, _ *cliEnv) (globalsearch.Index, string, error) {
	switch {
	case o.file != "" && o.table != "":
		return nil, "", &usageError{"--index and --table exclude each other"}
	case o.table != "":
		client, err := dynamoDBClient(ctx)
		if err != nil {
			return nil, "", err
		}
		return store.New(client, store.Tables{Index: o.table}), globalsearch.SpecDefaults.Namespace, nil
	case o.file == "":
		return nil, "", &usageError{"--index or --table is required"}
	}
	s, f, err := memstore.Open(o.file)
	if err != nil {
		return nil, "", err
	}
	return s, f.Namespace, nil
}
