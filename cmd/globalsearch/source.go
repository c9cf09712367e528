package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// indexOptions are the flags that choose where the index is read from.
type indexOptions struct {
	file  string
	table string
}

func (o *indexOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.file, "index", "", "index file (JSON) to search")
	fs.StringVar(&o.table, "table", "", "DynamoDB index table to search instead of --index (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)")
}

// open returns the index and the namespace a search defaults to: the one an
// index file holds, or docs/contract.md#request's default for a table, which holds many.
func (o *indexOptions) open(ctx context.Context, _ *cliEnv) (globalsearch.Index, string, error) {
	switch {
	case o.file != "" && o.table != "":
		return nil, "", &usageError{"--index and --table exclude each other"}
	case o.table != "":
		client, err := dynamoDBClient(ctx)
		if err != nil {
			return nil, "", err
		}
		idx, err := store.NewIndex(store.NewClient(client), o.table)
		if err != nil {
			return nil, "", err
		}
		return tableIndex{idx, o.table}, globalsearch.SpecDefaults.Namespace, nil
	case o.file == "":
		return nil, "", &usageError{"--index or --table is required"}
	}
	return openIndexFile(o.file)
}

// openIndexFile loads an index file into the embedded store.
func openIndexFile(path string) (*fileIndex, string, error) {
	f, err := indexfile.Load(path)
	if err != nil {
		return nil, "", err
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), f.Namespace, f.Records); err != nil {
		return nil, "", err
	}
	return &fileIndex{Store: s, path: path, namespace: f.Namespace}, f.Namespace, nil
}

// fileIndex is an index file: it holds exactly one namespace, so asking it
// for another is a mistake to report, not an empty search. The embedded
// store alone would read any other namespace as empty (as DynamoDB does),
// and the search would end no_results without saying why.
type fileIndex struct {
	*memstore.Store
	path, namespace string
}

func (f *fileIndex) check(namespace string) error {
	if namespace == f.namespace {
		return nil
	}
	return globalsearch.Errorf(globalsearch.KindInvalidInput,
		"the index file %s holds namespace %q, not %q: search %q or leave the namespace out", f.path, f.namespace, namespace, f.namespace)
}

// Open implements globalsearch.Index.
func (f *fileIndex) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	if err := f.check(namespace); err != nil {
		return nil, err
	}
	return f.Store.Open(ctx, namespace)
}

// tableIndex is the index table of --table; it names a missing table.
type tableIndex struct {
	*store.Index
	table string
}

// Open implements globalsearch.Index. The table is first read here (the
// namespace's version), so a missing table is named here.
func (t tableIndex) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	snap, err := t.Index.Open(ctx, namespace)
	return snap, missingTable(err, t.table)
}

// missingTable turns DynamoDB's "resource not found" for the index table
// into a message that names the table and the way to create it.
func missingTable(err error, table string) error {
	var notFound *types.ResourceNotFoundException
	if !errors.As(err, &notFound) {
		return err
	}
	return fmt.Errorf("the DynamoDB table %q does not exist at this endpoint: add --create-table to ingest or import (local emulators) or deploy the SAM template: %w", table, err)
}
