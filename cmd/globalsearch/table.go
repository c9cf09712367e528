package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

// tableFlagHelp is the help of the --table flag that names the index
// table to write.
const tableFlagHelp = "DynamoDB index table (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)"

// openIndexTable is the store over the DynamoDB index table a --table
// flag names: the one place the CLI builds a DynamoDB store. With create,
// the table is created first when it does not exist (local emulators).
func openIndexTable(ctx context.Context, table string, create bool) (*store.Index, error) {
	client, err := dynamoDBClient(ctx)
	if err != nil {
		return nil, err
	}
	tables := store.Tables{Index: table}
	if create {
		if err := store.CreateTables(ctx, client, tables); err != nil {
			return nil, err
		}
	}
	return store.NewIndex(store.NewClient(client), table)
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

// replaceInTable replaces a namespace of a DynamoDB index table and prints
// what it wrote. The import command's --table shares it.
func replaceInTable(ctx context.Context, out io.Writer, table, namespace string, r globalsearch.Records, create bool) error {
	s, err := openIndexTable(ctx, table, create)
	if err != nil {
		return err
	}
	if err := s.ReplaceNamespace(ctx, namespace, r); err != nil {
		return missingTable(err, table)
	}
	fmt.Fprintf(out, "namespace %s in table %s: wrote %d summaries, %d claims, %d chunks (records not in the file were deleted)\n",
		namespace, table, len(r.Summaries), len(r.Claims), len(r.Chunks))
	return nil
}
