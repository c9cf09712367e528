package main

import (
	"cmp"
	"context"
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
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
		return &usageError{"--index, --graphrag and --table exclude each other: give one"}
	case n == 0:
		return &usageError{"--index, --graphrag or --table is required"}
	}
	return o.graphrag.check()
}

// readNamespace is the namespace a GraphRAG folder is read into, known
// before it is read; "" for the other sources.
func (o *indexOptions) readNamespace() string {
	if o.graphrag.dir == "" {
		return ""
	}
	return cmp.Or(o.namespace, globalsearch.SpecDefaults.Namespace)
}

// open returns the index and the namespace a search defaults to: the one an
// index file holds, the one a GraphRAG folder was read into, or
// docs/contract.md#request's default for a table, which holds many.
func (o *indexOptions) open(ctx context.Context, env *cliEnv) (globalsearch.Index, string, error) {
	if err := o.check(); err != nil {
		return nil, "", err
	}
	switch {
	case o.graphrag.dir != "":
		return o.graphrag.open(ctx, env, o.readNamespace())
	case o.table != "":
		s, err := openIndexTable(ctx, o.table, false)
		if err != nil {
			return nil, "", err
		}
		// A table holds many namespaces: no file namespace, so the
		// request's defaults (GRAPHRAG_NAMESPACE, else "default") decide.
		return tableIndex{s, o.table}, "", nil
	}
	return openIndexFile(o.file, "--graphrag")
}

// openIndexFile loads an index file into the embedded store; search is
// the flag that would read a GraphRAG folder given in its place
// (loadIndexFile).
func openIndexFile(path, search string) (*fileIndex, string, error) {
	f, err := loadIndexFile(path, search, "--out index.json")
	if err != nil {
		return nil, "", err
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), f.Namespace, f.Records); err != nil {
		return nil, "", err
	}
	index := &fileIndex{Store: s, what: "the index file " + path, namespace: f.Namespace}
	if err := globalsearch.CheckHierarchy(f.Summaries); err != nil {
		// Kept for the first search rather than refused here: serve and
		// mcp start on such a file and answer each search with the error.
		index.corrupt = &corruptIndexFile{path: path, err: err}
	}
	return index, f.Namespace, nil
}

// corruptIndexFile is a corrupt hierarchy (docs/contract.md#hierarchy) in an
// index file the user gave. The file is the user's malformed input, so the
// CLI exits 2 for it as for any other (docs/contract.md#errors); its kind
// stays corrupt index, which serve answers 422 corrupt_index. A corrupt
// namespace read from a table is stored data, not this command's input:
// it keeps exit 1, and on AWS the Lambda error name CorruptIndexError.
type corruptIndexFile struct {
	path string
	err  error
}

func (e *corruptIndexFile) Error() string { return "index file " + e.path + ": " + e.err.Error() }

func (e *corruptIndexFile) Unwrap() error { return e.err }

// fileIndex is an index file: it holds exactly one namespace, so asking it
// for another is a mistake to report, not an empty search. The embedded
// store alone would read any other namespace as empty (as DynamoDB does),
// and the search would end no_results without saying why.
type fileIndex struct {
	*memstore.Store
	// what names the source in messages: "the index file F".
	what, namespace string
	// corrupt is the file's corrupt hierarchy, which every search of it
	// meets; nil for a sound file.
	corrupt error
}

func (f *fileIndex) check(namespace string) error {
	if namespace == f.namespace {
		return nil
	}
	return globalsearch.Errorf(globalsearch.KindInvalidInput,
		"%s holds namespace %q, not %q: search %q or leave the namespace out", f.what, f.namespace, namespace, f.namespace)
}

// Open implements globalsearch.Index.
func (f *fileIndex) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	if err := f.check(namespace); err != nil {
		return nil, err
	}
	if f.corrupt != nil {
		return nil, f.corrupt
	}
	return f.Store.Open(ctx, namespace)
}
