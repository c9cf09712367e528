package main

import (
	"context"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

// ingestCommand uploads an index file into the DynamoDB index table,
// replacing the namespace: records not in the file are deleted.
func ingestCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet("ingest", env)
	var (
		file      = fs.String("index", "", "index file (JSON) to upload")
		table     = fs.String("table", "", tableFlagHelp)
		namespace = fs.String("namespace", "", "namespace to replace (default: the file's namespace)")
		create    = fs.Bool("create-table", false, "create the table first when it does not exist (local emulators; production tables come from the SAM template)")
	)
	if _, err := cmdutil.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case *file == "":
		return &usageError{Msg: "--index is required"}
	case *table == "":
		return &usageError{Msg: "--table is required"}
	case *namespace != "" && !globalsearch.ValidNamespace(*namespace):
		return errNamespaceFlag
	}
	ns, records, err := indexsource.Ingest(ctx, *file, *table, *namespace, *create)
	if err != nil {
		return err
	}
	indexsource.WriteTableWrite(env.stdout, *table, ns, records)
	return nil
}
