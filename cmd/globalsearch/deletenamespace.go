package main

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

// deleteNamespaceCommand empties a namespace of a DynamoDB index table:
// the one way to, since an index file without summaries is refused
// (docs/contract.md#ingest).
func deleteNamespaceCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet("delete-namespace", env)
	var (
		table     = fs.String("table", "", tableFlagHelp)
		namespace = fs.String("namespace", "", "namespace to delete, every record of it")
	)
	if _, err := cmdutil.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case *table == "":
		return &usageError{Msg: "--table is required"}
	case *namespace == "":
		return &usageError{Msg: "--namespace is required: name the namespace to delete"}
	case !globalsearch.ValidNamespace(*namespace):
		return errNamespaceFlag
	}
	if err := indexsource.DeleteNamespace(ctx, *table, *namespace); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "namespace %s in table %s: deleted\n", *namespace, *table)
	return nil
}
