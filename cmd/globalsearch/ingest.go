package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

// ingestCommand uploads an index file into the DynamoDB index table,
// replacing the namespace: records not in the file are deleted.
func ingestCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var (
		file      = fs.String("index", "", "index file (JSON) to upload")
		table     = fs.String("table", "", "DynamoDB index table (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)")
		namespace = fs.String("namespace", "", "namespace to replace (default: the file's namespace)")
		create    = fs.Bool("create-table", false, "create the table first when it does not exist (local emulators; production tables come from the SAM template)")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &usageError{"ingest: help requested"}
		}
		return &usageError{err.Error()}
	}
	switch {
	case fs.NArg() > 0:
		return &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case *file == "":
		return &usageError{"--index is required"}
	case *table == "":
		return &usageError{"--table is required"}
	case *namespace != "" && !globalsearch.ValidNamespace(*namespace):
		return &usageError{"--namespace must be 1-64 characters of a-z 0-9 - _ ."}
	}
	// Validate before spending: a bad file is refused before any AWS call.
	f, err := indexfile.Load(*file)
	if err != nil {
		return err
	}
	ns := f.Namespace
	if *namespace != "" {
		ns = *namespace
	}
	return replaceInTable(ctx, env.stdout, *table, ns, f.Records, *create)
}

// replaceInTable replaces a namespace of a DynamoDB index table and prints
// what it wrote. The import command's --table shares it.
func replaceInTable(ctx context.Context, out io.Writer, table, namespace string, r globalsearch.Records, create bool) error {
	client, err := dynamoDBClient(ctx)
	if err != nil {
		return err
	}
	tables := store.Tables{Index: table}
	if create {
		if err := store.CreateTables(ctx, client, tables); err != nil {
			return err
		}
	}
	idx, err := store.NewIndex(store.NewClient(client), table)
	if err != nil {
		return err
	}
	if err := idx.ReplaceNamespace(ctx, namespace, r); err != nil {
		return missingTable(err, table)
	}
	fmt.Fprintf(out, "namespace %s in table %s: wrote %d summaries, %d claims, %d chunks (records not in the file were deleted)\n",
		namespace, table, len(r.Summaries), len(r.Claims), len(r.Chunks))
	return nil
}

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
		return &usageError{"--namespace must be 1-64 characters of a-z 0-9 - _ ."}
	}
	client, err := dynamoDBClient(ctx)
	if err != nil {
		return err
	}
	idx, err := store.NewIndex(store.NewClient(client), *table)
	if err != nil {
		return err
	}
	if err := idx.DeleteNamespace(ctx, *namespace); err != nil {
		return missingTable(err, *table)
	}
	fmt.Fprintf(env.stdout, "namespace %s in table %s: deleted\n", *namespace, *table)
	return nil
}
