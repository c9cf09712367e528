package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

// deleteNamespaceCommand empties a namespace of a DynamoDB index table:
// the one way to, since an index file without summaries is refused
// (docs/contract.md#ingest).
func deleteNamespaceCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("delete-namespace", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var (
		table     = fs.String("table", "", "DynamoDB index table (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)")
		namespace = fs.String("namespace", "", "namespace to delete, every record of it")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &usageError{"delete-namespace: help requested"}
		}
		return &usageError{err.Error()}
	}
	switch {
	case fs.NArg() > 0:
		return &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case *table == "":
		return &usageError{"--table is required"}
	case *namespace == "":
		return &usageError{"--namespace is required: name the namespace to delete"}
	case !globalsearch.ValidNamespace(*namespace):
		return &usageError{"--namespace " + globalsearch.NamespaceRule}
	}
	client, err := dynamoDBClient(ctx)
	if err != nil {
		return err
	}
	if err := store.New(client, store.Tables{Index: *table}).DeleteNamespace(ctx, *namespace); err != nil {
		return missingTable(err, *table)
	}
	fmt.Fprintf(env.stdout, "namespace %s in table %s: deleted\n", *namespace, *table)
	return nil
}
