// Package indexsource opens the index a command searches: an index file,
// a GraphRAG output folder read in memory, or a DynamoDB index table; and
// imports a GraphRAG folder into a file or a table. It is wiring, not an
// adapter: it chooses among the index adapters (shared/indexfile,
// shared/graphrag, shared/store, shared/store/memstore) for the CLI, so
// that cmd/globalsearch holds only its flags and its printing
// (docs/architecture.md#packages).
package indexsource

import (
	"cmp"
	"context"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Source names where an index is read from: exactly one of File, GraphRAG
// (its Dir) and Table. The CLI checks that of its flags before Open.
type Source struct {
	// File is an index file (JSON).
	File string
	// GraphRAG is a GraphRAG output folder read in memory, by import's
	// rules; nil or an empty Dir for none.
	GraphRAG *GraphRAGOptions
	// Table is a DynamoDB index table.
	Table string
	// Namespace is the namespace a GraphRAG folder is read into
	// (globalsearch.SpecDefaults.Namespace when empty).
	Namespace string
	// Note receives the lines a GraphRAG folder read in memory reports on
	// what it read (ReadNote, then its warnings); nil drops them.
	Note func(line string)
}

func (s Source) graphrag() bool { return s.GraphRAG != nil && s.GraphRAG.Dir != "" }

// ReadNamespace is the namespace a GraphRAG folder is read into, known
// before it is read; "" for the other sources.
func (s Source) ReadNamespace() string {
	if !s.graphrag() {
		return ""
	}
	return cmp.Or(s.Namespace, globalsearch.SpecDefaults.Namespace)
}

// Open returns the index and the namespace a search defaults to: the one an
// index file holds, the one a GraphRAG folder was read into, or "" for a
// table, which holds many, so that docs/contract.md#request's defaults
// (GRAPHRAG_NAMESPACE, else "default") decide.
func (s Source) Open(ctx context.Context) (globalsearch.Index, string, error) {
	switch {
	case s.graphrag():
		return s.GraphRAG.open(ctx, s.ReadNamespace(), s.Note)
	case s.Table != "":
		t, err := OpenTable(ctx, s.Table, false)
		if err != nil {
			return nil, "", err
		}
		return tableIndex{t, s.Table}, "", nil
	}
	return OpenFile(s.File, "--graphrag")
}
