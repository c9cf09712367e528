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
