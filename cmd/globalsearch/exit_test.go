package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCorruptIndexFileExitsAsInvalidInput: an index file whose hierarchy is
// corrupt (a cycle) is the user's malformed input, so every command that
// reads one exits 2 naming the file (docs/contract.md#errors), before any
// read of a table or model call; the kind stays corrupt index, which
// serve answers 422 corrupt_index and a Lambda names CorruptIndexError.
func TestCorruptIndexFileExitsAsInvalidInput(t *testing.T) {
	f := smallIndex()
	f.Records.Summaries[0].ParentCommunityID = "fish" // a cycle: root -> fish -> root
	path := writeIndex(t, f)
	tests := []struct {
		name string
		args []string
	}{
		{"plan", []string{"plan", "--index", path, "--query", "What changed?"}},
		{"run", []string{"run", "--index", path, "--query", "What changed?", "--model", "offline"}},
		// No table exists at this endpoint: the file is refused before any call.
		{"ingest", []string{"ingest", "--index", path, "--table", "nowhere"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) {
				if k == "AWS_ENDPOINT_URL_DYNAMODB" {
					return "http://127.0.0.1:1", true
				}
				return "", false
			}
			assert.Equal(t, 2, runMain(context.Background(), env, tc.args), errOut.String())
			assert.Contains(t, errOut.String(), "index file "+path+": corrupt index")
			assert.Contains(t, errOut.String(), "cycle")
		})
	}
}
