package indexsource

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// OpenFile loads an index file into the embedded store; search is the flag
// that would read a GraphRAG folder given in its place (LoadFile).
func OpenFile(path, search string) (*FileIndex, string, error) {
	f, err := LoadFile(path, search, "--out index.json")
	if err != nil {
		return nil, "", err
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), f.Namespace, f.Records); err != nil {
		return nil, "", err
	}
	index := &FileIndex{Store: s, what: "the index file " + path, namespace: f.Namespace}
	if err := globalsearch.CheckHierarchy(f.Summaries); err != nil {
		// Kept for the first search rather than refused here: serve and
		// mcp start on such a file and answer each search with the error.
		index.corrupt = &CorruptFileError{Path: path, Err: err}
	}
	return index, f.Namespace, nil
}

// CorruptFileError is a corrupt hierarchy (docs/contract.md#hierarchy) in
// an index file the user gave. The file is the user's malformed input, so
// the CLI exits 2 for it as for any other (docs/contract.md#errors); its
// kind stays corrupt index, which serve answers 422 corrupt_index. A
// corrupt namespace read from a table is stored data, not this command's
// input: it keeps exit 1, and on AWS the Lambda error name
// CorruptIndexError.
type CorruptFileError struct {
	Path string
	Err  error
}

func (e *CorruptFileError) Error() string { return "index file " + e.Path + ": " + e.Err.Error() }

func (e *CorruptFileError) Unwrap() error { return e.Err }

// FileIndex is an index file: it holds exactly one namespace, so asking it
// for another is a mistake to report, not an empty search. The embedded
// store alone would read any other namespace as empty (as DynamoDB does),
// and the search would end no_results without saying why.
type FileIndex struct {
	*memstore.Store
	// what names the source in messages: "the index file F".
	what, namespace string
	// corrupt is the file's corrupt hierarchy, which every search of it
	// meets; nil for a sound file.
	corrupt error
}

func (f *FileIndex) check(namespace string) error {
	if namespace == f.namespace {
		return nil
	}
	return globalsearch.Errorf(globalsearch.KindInvalidInput,
		"%s holds namespace %q, not %q: search %q or leave the namespace out", f.what, f.namespace, namespace, f.namespace)
}

// Open implements globalsearch.Index.
func (f *FileIndex) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	if err := f.check(namespace); err != nil {
		return nil, err
	}
	if f.corrupt != nil {
		return nil, f.corrupt
	}
	return f.Store.Open(ctx, namespace)
}

// LoadFile reads an index file, first telling a GraphRAG folder or parquet
// file given in its place by what it is and what to run instead: search is
// the flag that searches it in place ("" for a command that cannot), into
// where an import should write (import's --out or --table).
func LoadFile(path, search, into string) (indexfile.File, error) {
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
