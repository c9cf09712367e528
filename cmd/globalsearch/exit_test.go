package main

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestExitStatusByKind: the CLI's column of docs/contract.md#errors. The
// input's fault (invalid input, a query id that names another request, a
// bad command line) exits 2; anything else exits 1.
func TestExitStatusByKind(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"invalid input", globalsearch.Errorf(globalsearch.KindInvalidInput, "bad"), 2},
		{"conflict", globalsearch.Errorf(globalsearch.KindConflict, "query id q already names a different request"), 2},
		{"usage", &usageError{msg: "no query"}, 2},
		{"corrupt index", globalsearch.Errorf(globalsearch.KindCorruptIndex, "cycle"), 1},
		{"not found", globalsearch.Errorf(globalsearch.KindNotFound, "gone"), 1},
		{"throttled", globalsearch.Errorf(globalsearch.KindThrottled, "busy"), 1},
		{"internal", errors.New("disk full"), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmds := map[string]command{"fail": {run: func(context.Context, *cliEnv, []string) error { return tc.err }}}
			env, _, errOut := testEnv("")
			assert.Equal(t, tc.want, dispatch(context.Background(), env, cmds, []string{"fail"}))
			assert.Equal(t, "globalsearch fail: "+tc.err.Error()+"\n", errOut.String())
		})
	}
}

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
