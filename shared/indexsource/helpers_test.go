package indexsource

import (
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

// The shared fixtures of indexfiletest, by the names these tests use.
var (
	smallIndex = indexfiletest.Small
	writeIndex = indexfiletest.Write
)

// The rows of a small GraphRAG output folder with claims and text units.
type (
	testReport struct {
		Community int64  `parquet:"community"`
		Level     int64  `parquet:"level"`
		Parent    int64  `parquet:"parent"`
		Title     string `parquet:"title"`
		Summary   string `parquet:"summary"`
	}
	testCommunity struct {
		Community int64    `parquet:"community"`
		Level     int64    `parquet:"level"`
		Parent    int64    `parquet:"parent"`
		EntityIDs []string `parquet:"entity_ids,list"`
	}
	testEntity struct {
		ID    string `parquet:"id"`
		Title string `parquet:"title"`
	}
	testCovariate struct {
		ID          string `parquet:"id"`
		SubjectID   string `parquet:"subject_id"`
		ObjectID    string `parquet:"object_id"`
		Description string `parquet:"description"`
		TextUnitID  string `parquet:"text_unit_id"`
		SourceText  string `parquet:"source_text"`
	}
	testTextUnit struct {
		ID         string `parquet:"id"`
		Text       string `parquet:"text"`
		DocumentID string `parquet:"document_id"`
	}
)

func writeRows[T any](t *testing.T, dir, name string, rows []T) {
	t.Helper()
	require.NoError(t, parquet.WriteFile(filepath.Join(dir, name), rows))
}

// writeFolder writes a GraphRAG output folder: a root over two leaves, one
// claim on each leaf, each citing a text unit.
func writeFolder(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	writeRows(t, dir, "community_reports.parquet", []testReport{
		{Community: 0, Level: 0, Parent: -1, Title: "Harbour", Summary: "The harbour economy changed over the decade."},
		{Community: 1, Level: 1, Parent: 0, Title: "Fisheries", Summary: "Fishing quotas were cut and the fleet shrank."},
		{Community: 2, Level: 1, Parent: 0, Title: "Solar", Summary: "Solar farms replaced diesel generators on the islands."},
	})
	writeRows(t, dir, "communities.parquet", []testCommunity{
		{Community: 0, Level: 0, Parent: -1, EntityIDs: []string{"e1", "e2"}},
		{Community: 1, Level: 1, Parent: 0, EntityIDs: []string{"e1"}},
		{Community: 2, Level: 1, Parent: 0, EntityIDs: []string{"e2"}},
	})
	writeRows(t, dir, "entities.parquet", []testEntity{{ID: "e1", Title: "FLEET"}, {ID: "e2", Title: "GRID"}})
	writeRows(t, dir, "covariates.parquet", []testCovariate{
		{ID: "k1", SubjectID: "FLEET", ObjectID: "QUOTA", Description: "the fleet shrank by half", TextUnitID: "t1", SourceText: "Half the boats were laid up."},
		{ID: "k2", SubjectID: "GRID", ObjectID: "SOLAR", Description: "solar met half of demand", TextUnitID: "t2", SourceText: "By 2030 solar met half of demand."},
	})
	writeRows(t, dir, "text_units.parquet", []testTextUnit{
		{ID: "t1", Text: "The harbour report. Half the boats were laid up. Quotas fell again.", DocumentID: "d1"},
		{ID: "t2", Text: "The energy report. By 2030 solar met half of demand.", DocumentID: "d2"},
	})
	return dir
}

// minidynEnv points the standard AWS configuration chain at a fresh
// minidyn, as a user would point it at DynamoDB Local, and returns a store
// over table to check what was written. It sets process environment, so
// its tests do not run in parallel.
func minidynEnv(t *testing.T, table string) *store.Index {
	endpoint, _ := testenv.MinidynEndpoint(t)
	testenv.UseAWS(t, map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": endpoint})
	idx, err := store.NewIndex(store.NewClient(testenv.DynamoDBClient(t, endpoint)), table)
	require.NoError(t, err)
	return idx
}
