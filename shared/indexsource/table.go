package indexsource

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/awsconfig"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/recorded"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

// OpenTable is the store over the DynamoDB index table a --table flag
// names: the one place the CLI builds a DynamoDB index store. With create,
// the table is created first when it does not exist (local emulators).
func OpenTable(ctx context.Context, table string, create bool) (*store.Index, error) {
	cfg, err := awsconfig.Load(ctx, "DynamoDB")
	if err != nil {
		return nil, err
	}
	client := dynamodb.NewFromConfig(cfg)
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
	return snap, MissingTable(err, t.table)
}

// MissingTable turns DynamoDB's "resource not found" for the index table
// into a message that names the table and the way to create it.
func MissingTable(err error, table string) error {
	var notFound *types.ResourceNotFoundException
	if !errors.As(err, &notFound) {
		return err
	}
	return fmt.Errorf("the DynamoDB table %q does not exist at this endpoint: add --create-table to ingest or import (local emulators) or deploy the SAM template: %w", table, err)
}

// ReplaceInTable replaces a namespace of a DynamoDB index table with r:
// records not in r are deleted. Ingest and import share it.
func ReplaceInTable(ctx context.Context, table, namespace string, r globalsearch.Records, create bool) error {
	s, err := OpenTable(ctx, table, create)
	if err != nil {
		return err
	}
	return MissingTable(s.ReplaceNamespace(ctx, namespace, r), table)
}

// RunsResults reads the recorded results of ids from the DynamoDB runs
// table through client (calibrate --table); a missing table is named.
func RunsResults(ctx context.Context, client *dynamodb.Client, table string, ids []string) ([]globalsearch.Result, error) {
	runs, err := store.NewRuns(store.NewClient(client), table)
	if err != nil {
		return nil, err
	}
	out, err := recorded.FromRuns(ctx, runs, table, ids)
	return out, MissingTable(err, table)
}
