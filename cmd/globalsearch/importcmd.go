package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

// unmatchedExamples is how many unmatched claims the summary shows per
// reason: enough to recognise the pattern, not a wall of text.
const unmatchedExamples = 3

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
	printImportReport(env.stdout, report)
	if err := im.Write(ctx, records); err != nil {
		return err
	}
	if *table != "" {
		printTableWrite(env.stdout, *table, *namespace, records)
		return nil
	}
	fmt.Fprintf(env.stdout, "wrote namespace %s to %s\n", *namespace, *out)
	return nil
}

// printImportReport prints what was imported and, grouped by reason, what
// was not.
func printImportReport(w io.Writer, r graphrag.Report) {
	levels := make([]string, 0, len(r.Levels))
	for _, l := range slices.Sorted(maps.Keys(r.Levels)) {
		levels = append(levels, fmt.Sprintf("%d:%d", l, r.Levels[l]))
	}
	fmt.Fprintf(w, "summaries: %d (%d leaves; per level %s; %d blank)\n", r.Summaries, r.Leaves, strings.Join(levels, " "), r.BlankSummaries)
	fmt.Fprintf(w, "claims:    %d attached of %d covariates, %d unmatched (not stored)\n", r.ClaimsAttached, r.Covariates, len(r.Unmatched))
	byReason := map[string][]graphrag.UnmatchedClaim{}
	for _, u := range r.Unmatched {
		byReason[u.Reason] = append(byReason[u.Reason], u)
	}
	for _, reason := range slices.Sorted(maps.Keys(byReason)) {
		list := byReason[reason]
		fmt.Fprintf(w, "  %d: %s\n", len(list), reason)
		for _, u := range list[:min(len(list), unmatchedExamples)] {
			fmt.Fprintf(w, "    claim %s, subject %s\n", globalsearch.Echo(u.ID), globalsearch.EchoQuoted(u.Subject))
		}
	}
	printChunkReport(w, r)
	fmt.Fprintf(w, "graph:     %d entities, %d relationships, %d documents (for show, not searched)\n", r.Entities, r.Relationships, r.Documents)
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", terminalText(warning))
	}
}

// printChunkReport says what the claims cite and which chunks were stored.
func printChunkReport(w io.Writer, r graphrag.Report) {
	switch r.Excerpts {
	case graphrag.ExcerptsSourceText:
		fmt.Fprintf(w, "excerpts:  %d claims cite %d excerpt chunks (source_text); no source text: %d claims (%d cite their whole text unit instead, %d cite nothing)\n",
			r.ClaimsAttached-r.NoSourceText, r.ExcerptChunks, r.NoSourceText, r.CiteTextUnit, r.NoSourceText-r.CiteTextUnit)
		fmt.Fprintf(w, "chunks:    %d (%d excerpts, %d whole text units; %d of %d text units left out: no claim cites them)\n",
			r.Chunks, r.ExcerptChunks, r.Chunks-r.ExcerptChunks, r.TextUnitsUncited, r.TextUnits)
	case graphrag.ExcerptsNone:
		fmt.Fprintf(w, "chunks:    0 (--excerpts none: claims cite nothing)\n")
	default:
		fmt.Fprintf(w, "chunks:    %d (whole text units)\n", r.Chunks)
	}
}
