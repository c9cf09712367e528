package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// graphragOptions are the flags of a search that reads a GraphRAG output
// folder in memory (--graphrag), with import's own options.
type graphragOptions struct {
	dir, content, excerpts string
}

func (o *graphragOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.dir, "graphrag", "", "Microsoft GraphRAG output folder (parquet), or a project root whose output/ holds it, to search without an import step (namespace \"default\" unless --namespace)")
	fs.StringVar(&o.content, "content", "", `with --graphrag: report text to search, "summary" (default) or "full_content", as import's --content`)
	fs.StringVar(&o.excerpts, "excerpts", "", `with --graphrag: what claims cite, "source-text" (default), "text-unit" or "none", as import's --excerpts`)
}

// check refuses import options without --graphrag, and bad values, before
// anything is read.
func (o *graphragOptions) check() error {
	if o.dir == "" {
		if o.content != "" || o.excerpts != "" {
			return &usageError{"--content and --excerpts go with --graphrag DIR"}
		}
		return nil
	}
	_, err := importOptions(o.content, o.excerpts)
	return err
}

// importOptions is graphrag.ParseOptions, a bad value a usageError.
func importOptions(content, excerpts string) (graphrag.Options, error) {
	opts, err := graphrag.ParseOptions(content, excerpts)
	return opts, asUsage(err)
}

// open imports the folder in memory under namespace, by import's rules, as
// an index that holds that namespace alone (like an index file), and says
// on stderr what it read (readNote).
func (o *graphragOptions) open(ctx context.Context, env *cliEnv, namespace string) (*fileIndex, string, error) {
	if !globalsearch.ValidNamespace(namespace) {
		return nil, "", errNamespaceFlag
	}
	opts, err := importOptions(o.content, o.excerpts)
	if err != nil {
		return nil, "", err
	}
	dir, err := graphrag.OutputDir(o.dir)
	if err != nil {
		return nil, "", err
	}
	records, report, err := graphrag.Import(ctx, dir, opts)
	if err != nil {
		return nil, "", fmt.Errorf("--graphrag %s: %w", dir, err)
	}
	if env != nil {
		fmt.Fprintln(env.stderr, terminalText(readNote(dir, report)))
		for _, w := range report.Warnings {
			fmt.Fprintf(env.stderr, "--graphrag %s: warning: %s\n", terminalText(dir), terminalText(w))
		}
	}
	if len(records.Summaries) == 0 {
		return nil, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "--graphrag %s: no community reports to search: %s", dir, globalsearch.NoSummariesMessage)
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(ctx, namespace, records); err != nil {
		return nil, "", err
	}
	return &fileIndex{Store: s, what: "the GraphRAG output folder " + dir + " (read in memory)", namespace: namespace}, namespace, nil
}

// readNote is the one line a search in place prints of what it read: the
// counts import prints, and where to see what was left out.
func readNote(dir string, r graphrag.Report) string {
	note := fmt.Sprintf("--graphrag %s: %s (%d leaves), %d of %s, %s",
		dir, count(r.Summaries, "summary", "summaries"), r.Leaves, r.ClaimsAttached, count(r.Covariates, "claim", "claims"), count(r.Chunks, "chunk", "chunks"))
	if len(r.Unmatched) > 0 {
		note += fmt.Sprintf("; %s not stored (`globalsearch import graphrag --dir %s --out FILE` lists why)", count(len(r.Unmatched), "claim", "claims"), dir)
	}
	return note
}

// loadIndexFile reads an index file, first telling a GraphRAG folder or
// parquet file given in its place by what it is and what to run instead:
// search is the flag that searches it in place ("" for a command that
// cannot), into where an import should write (import's --out or --table).
func loadIndexFile(path, search, into string) (indexfile.File, error) {
	if hint := graphragHint(path, search, into); hint != "" {
		return indexfile.File{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "--index wants an index file (JSON), but %s", hint)
	}
	return indexfile.Load(path)
}

// graphragHint says what path is to GraphRAG and how to search or import
// it, or "" when it is none of GraphRAG's.
func graphragHint(path, search, into string) string {
	dir, what := path, ""
	switch graphrag.Detect(path) {
	case graphrag.OutputFolder:
		what = path + " is a GraphRAG output folder"
	case graphrag.ProjectRoot:
		dir = filepath.Join(path, graphrag.ProjectOutput)
		what = fmt.Sprintf("%s is a GraphRAG project root, whose output is in %s", path, dir)
	case graphrag.ParquetFile:
		dir = filepath.Dir(path)
		if graphrag.Detect(dir) != graphrag.OutputFolder {
			return path + " is a parquet file; a GraphRAG output folder holds community_reports.parquet: search or import that folder"
		}
		what = fmt.Sprintf("%s is a parquet file of the GraphRAG output folder %s", path, dir)
	default:
		return ""
	}
	importIt := fmt.Sprintf("import it with `globalsearch import graphrag --dir %s %s`", dir, into)
	if search == "" {
		return what + ": " + importIt
	}
	return fmt.Sprintf("%s: search it with %s %s, or %s", what, search, dir, importIt)
}
