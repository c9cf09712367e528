package indexsource

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// Import is `globalsearch import graphrag`: a GraphRAG output folder read
// by Options and written under Namespace to an index file (Out) or a
// DynamoDB index table (Table). The CLI checks its flags first; Read and
// Write are two steps so that it can print the report between them, also
// when Write refuses an empty import.
type Import struct {
	Dir       string
	Options   graphrag.Options
	Namespace string
	Out       string
	Table     string
	// CreateTable creates Table first when it does not exist (local
	// emulators).
	CreateTable bool
}

// Read reads the folder; a project root is refused with the folder to give
// instead, since an import, unlike a search, names its source exactly.
func (im Import) Read(ctx context.Context) (globalsearch.Records, graphrag.Report, error) {
	if graphrag.Detect(im.Dir) == graphrag.ProjectRoot {
		out := filepath.Join(im.Dir, graphrag.ProjectOutput)
		return globalsearch.Records{}, graphrag.Report{}, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"import %s: a GraphRAG project root, whose output is in %s: give --dir %s", im.Dir, out, out)
	}
	records, report, err := graphrag.Import(ctx, im.Dir, im.Options)
	if err != nil {
		return globalsearch.Records{}, graphrag.Report{}, fmt.Errorf("import %s: %w", im.Dir, err)
	}
	return records, report, nil
}

// Write writes what Read read to the table or the file.
func (im Import) Write(ctx context.Context, records globalsearch.Records) error {
	if len(records.Summaries) == 0 {
		// As an index file without summaries is refused (docs/contract.md#ingest):
		// written out, run would refuse the file; into a table, it would
		// empty the namespace.
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "import %s: no community reports to import: %s", im.Dir, globalsearch.NoSummariesMessage)
	}
	if im.Table != "" {
		return ReplaceInTable(ctx, im.Table, im.Namespace, records, im.CreateTable)
	}
	if err := indexfile.Save(im.Out, indexfile.File{Namespace: im.Namespace, Records: records}); err != nil {
		return fmt.Errorf("write index file: %w", err)
	}
	return nil
}
