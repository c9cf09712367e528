package main

import (
	"context"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
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
		return &usageError{"--index is required"}
	case *table == "":
		return &usageError{"--table is required"}
	case *namespace != "" && !globalsearch.ValidNamespace(*namespace):
		return errNamespaceFlag
	}
	// Validate before spending: a bad file is refused before any AWS call.
	f, err := loadIndexFile(*file, "", "--table "+*table+" --namespace NS")
	if err != nil {
		return err
	}
	// A corrupt hierarchy stored would fail every search of the namespace.
	if err := globalsearch.CheckHierarchy(f.Summaries); err != nil {
		return &corruptIndexFile{path: *file, err: err}
	}
	ns := f.Namespace
	if *namespace != "" {
		ns = *namespace
	}
	return replaceInTable(ctx, env.stdout, *table, ns, f.Records, *create)
}
