package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
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
		return &usageError{"--namespace " + globalsearch.NamespaceRule}
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
