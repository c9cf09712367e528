package main

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

const importUsage = "usage: globalsearch import graphrag --dir DIR [--content summary|full_content] [--excerpts source-text|text-unit|none] (--out FILE [--namespace NS] | --table T --namespace NS [--create-table])"

// importCommand implements
//
//	globalsearch import graphrag --dir DIR [--content summary|full_content]
//	    [--excerpts source-text|text-unit|none] (--out FILE [--namespace NS] | --table T --namespace NS [--create-table])
func importCommand(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(env.stdout, importUsage+"\n\nRun 'globalsearch import graphrag -h' for the flags.")
		return cmdutil.ErrHelp
	}
	if len(args) == 0 || args[0] != "graphrag" {
		return &usageError{Msg: importUsage}
	}
	fs := newFlagSet("import graphrag", env)
	var (
		dir       = fs.String("dir", "", "GraphRAG output folder holding community_reports.parquet and the other parquet files")
		content   = fs.String("content", string(graphrag.ContentSummary), `report text to import: "summary" or "full_content"`)
		excerpts  = fs.String("excerpts", string(graphrag.ExcerptsSourceText), `what claims cite: "source-text" (the claim's own excerpt), "text-unit" (the whole text unit) or "none"`)
		namespace = fs.String("namespace", globalsearch.SpecDefaults.Namespace, "namespace the records go to (required with --table)")
		out       = fs.String("out", "", "write an index file (JSON) to this path")
		table     = fs.String("table", "", "replace the namespace in this DynamoDB table")
		create    = fs.Bool("create-table", false, "with --table: create the table first when it does not exist (local emulators)")
	)
	set, err := cmdutil.Parse(fs, args[1:])
	if err != nil {
		return err
	}
	// Validate every flag before reading a byte.
	opts, err := importOptions(*content, *excerpts)
	switch {
	case *dir == "":
		return &usageError{Msg: "--dir is required"}
	case err != nil:
		return err
	case !globalsearch.ValidNamespace(*namespace):
		return errNamespaceFlag
	case (*out == "") == (*table == ""):
		return &usageError{Msg: "exactly one of --out and --table is required"}
	case *table != "" && !set["namespace"]:
		// --table replaces a whole namespace; a default name would silently
		// replace whatever corpus already lives under "default".
		return &usageError{Msg: "--table needs --namespace: the import replaces that namespace's records in the table"}
	case *create && *table == "":
		return &usageError{Msg: "--create-table needs --table"}
	}

	opts.Progress = env.stderr
	im := indexsource.Import{Dir: *dir, Options: opts, Namespace: *namespace, Out: *out, Table: *table, CreateTable: *create}
	records, report, err := im.Read(ctx)
	if err != nil {
		return err
	}
	indexsource.WriteImportReport(env.stdout, report)
	if err := im.Write(ctx, records); err != nil {
		return err
	}
	if *table != "" {
		indexsource.WriteTableWrite(env.stdout, *table, *namespace, records)
		return nil
	}
	fmt.Fprintf(env.stdout, "wrote namespace %s to %s\n", *namespace, *out)
	return nil
}
