package indexsource

import (
	"cmp"
	"context"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Ingest uploads the index file File into the DynamoDB index table Table,
// replacing a namespace: records not in the file are deleted. The
// namespace is Namespace, else the file's own. It returns the namespace
// replaced and the records written, for the CLI to report.
func Ingest(ctx context.Context, file, table, namespace string, createTable bool) (string, globalsearch.Records, error) {
	// Validate before spending: a bad file is refused before any AWS call.
	f, err := LoadFile(file, "", "--table "+table+" --namespace NS")
	if err != nil {
		return "", globalsearch.Records{}, err
	}
	// A corrupt hierarchy stored would fail every search of the namespace.
	if err := globalsearch.CheckHierarchy(f.Summaries); err != nil {
		return "", globalsearch.Records{}, &CorruptFileError{Path: file, Err: err}
	}
	ns := cmp.Or(namespace, f.Namespace)
	return ns, f.Records, ReplaceInTable(ctx, table, ns, f.Records, createTable)
}

// DeleteNamespace deletes every record of namespace from the DynamoDB
// index table: the one way to empty a namespace, since an index file
// without summaries is refused (docs/contract.md#ingest).
func DeleteNamespace(ctx context.Context, table, namespace string) error {
	s, err := OpenTable(ctx, table, false)
	if err != nil {
		return err
	}
	return MissingTable(s.DeleteNamespace(ctx, namespace), table)
}
