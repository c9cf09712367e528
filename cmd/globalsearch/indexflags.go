package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

// indexOptions are the flags that choose where the index is read from:
// an index file, a GraphRAG output folder read in memory, or a table.
type indexOptions struct {
	file     string
	table    string
	graphrag graphragOptions
	// namespace is the --namespace of the command, when it has one: the
	// namespace a GraphRAG folder is read into ("default" when empty).
	namespace string
	// searchOnly: the command only searches (run, plan), so a GraphRAG
	// folder is read without its graph (indexsource.GraphRAGOptions).
	searchOnly bool
}

func (o *indexOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.file, "index", "", "index file (JSON) to search")
	o.graphrag.register(fs)
	fs.StringVar(&o.table, "table", "", "DynamoDB index table to search instead of --index (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)")
}

// given says whether a flag names an index.
func (o *indexOptions) given() bool {
	return o.file != "" || o.table != "" || o.graphrag.dir != ""
}

// check is the rule of the index flags: one source, and import's options
// only with --graphrag. Commands call it before anything is read.
func (o *indexOptions) check() error {
	n := 0
	for _, v := range []string{o.file, o.table, o.graphrag.dir} {
		if v != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return &usageError{Msg: "--index, --graphrag and --table exclude each other: give one"}
	case n == 0:
		return &usageError{Msg: "--index, --graphrag or --table is required"}
	}
	return o.graphrag.check()
}

// source is the index the flags name; env, when not nil, gets on stderr
// what a GraphRAG folder read in memory held.
func (o *indexOptions) source(env *cliEnv) indexsource.Source {
	s := indexsource.Source{File: o.file, Table: o.table, Namespace: o.namespace,
		GraphRAG: &indexsource.GraphRAGOptions{Dir: o.graphrag.dir, Content: o.graphrag.content, Excerpts: o.graphrag.excerpts, SearchOnly: o.searchOnly}}
	if env != nil {
		s.Note = func(line string) { fmt.Fprintln(env.stderr, terminalText(line)) }
	}
	return s
}

// readNamespace is indexsource.Source.ReadNamespace of the flags.
func (o *indexOptions) readNamespace() string { return o.source(nil).ReadNamespace() }

// open checks the flags and opens the index (indexsource.Source.Open).
func (o *indexOptions) open(ctx context.Context, env *cliEnv) (globalsearch.Index, string, error) {
	if err := o.check(); err != nil {
		return nil, "", err
	}
	if o.graphrag.dir != "" && !globalsearch.ValidNamespace(o.readNamespace()) {
		return nil, "", errNamespaceFlag
	}
	// The source's own invalid input (a missing AWS region, a folder with
	// no reports) keeps its kind, which exits 2 as a usageError does.
	return o.source(env).Open(ctx)
}
