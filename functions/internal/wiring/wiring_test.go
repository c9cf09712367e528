package wiring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// A function gets the runs table and only the tables it names
// (docs/contract.md#tables); a named table without a name fails the
// build, which Load reports at start-up with the other problems.
func TestTables(t *testing.T) {
	named := workflow.Config{RunsTable: "runs", IndexTable: "index", MapCacheTable: "cache"}
	tests := []struct {
		name                 string
		config               workflow.Config
		need                 []string
		wantIndex, wantCache bool
		wantErr              string
	}{
		{"api: the runs table alone", named, nil, false, false, ""},
		{"prepare: and the index table", named, []string{workflow.EnvIndexTable, workflow.EnvMaxBatches}, true, false, ""},
		{"map: and the cache table", named, []string{workflow.EnvModelID, workflow.EnvMapCacheTable}, false, true, ""},
		{"prepare and map: the batch texts in the payload bucket", workflow.Config{RunsTable: "runs", PayloadBucket: "texts"},
			[]string{workflow.EnvPayloadBucket}, false, false, ""},
		{"a payload bucket without a name", named, []string{workflow.EnvPayloadBucket}, false, false, "the payload bucket has no name"},
		{"no runs table", workflow.Config{IndexTable: "index"}, []string{workflow.EnvIndexTable}, true, false, "the runs table has no name"},
		{"a named table without a name", workflow.Config{RunsTable: "runs"}, []string{workflow.EnvIndexTable, workflow.EnvMapCacheTable}, false, false,
			"the index table has no name\nthe map cache table has no name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Function{Config: tc.config}
			err := f.tables(tc.need)
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, f.Runs)
			assert.Equal(t, tc.config.PayloadBucket != "", f.Payloads != nil, "the payload bucket when named")
			assert.Equal(t, tc.wantIndex, f.Index != nil)
			assert.Equal(t, tc.wantCache, f.Cache != nil)
		})
	}
}
