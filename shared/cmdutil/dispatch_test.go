package cmdutil_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
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
		{"usage", &cmdutil.UsageError{Msg: "no query"}, 2},
		{"corrupt index", globalsearch.Errorf(globalsearch.KindCorruptIndex, "cycle"), 1},
		{"not found", globalsearch.Errorf(globalsearch.KindNotFound, "gone"), 1},
		{"throttled", globalsearch.Errorf(globalsearch.KindThrottled, "busy"), 1},
		{"nothing to search", &globalsearch.NothingToSearch{Msg: "namespace \"x\" holds no summaries"}, cmdutil.ExitNothingToSearch},
		{"internal", errors.New("disk full"), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmds := map[string]cmdutil.Command[any]{"fail": {Run: func(context.Context, any, []string) error { return tc.err }}}
			var errOut bytes.Buffer
			assert.Equal(t, tc.want, cmdutil.Dispatch[any](context.Background(), nil, cmds, []string{"fail"}, io.Discard, &errOut, nil))
			assert.Equal(t, "globalsearch fail: "+tc.err.Error()+"\n", errOut.String())
		})
	}
}

// TestPanicExitsOneAsAnInternalError: a bug in a command is an internal
// error (exit 1, its stack on stderr), never exit 2, which says the input
// was wrong, whatever the value it panics with.
func TestPanicExitsOneAsAnInternalError(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"string", "index out of range", "globalsearch boom: internal error: index out of range\n"},
		{"runtime error", nil, "globalsearch boom: internal error: runtime error: invalid memory address or nil pointer dereference\n"},
		{"invalid-input error", globalsearch.Errorf(globalsearch.KindInvalidInput, "bad"), "globalsearch boom: internal error: bad\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmds := map[string]cmdutil.Command[any]{"boom": {Run: func(context.Context, any, []string) error {
				if tc.value == nil {
					var m map[string]*int
					return errors.New(strconv.Itoa(*m["x"]))
				}
				panic(tc.value)
			}}}
			var errOut bytes.Buffer
			assert.Equal(t, 1, cmdutil.Dispatch[any](context.Background(), nil, cmds, []string{"boom"}, io.Discard, &errOut, nil))
			first, stack, _ := strings.Cut(errOut.String(), "\n")
			assert.Equal(t, tc.want, first+"\n")
			assert.Contains(t, stack, "goroutine", "the stack follows, for a bug report")
		})
	}
}

// TestWorkerPanicExitsOneWithTheWorkersStack: a map worker's panic, raised
// again on the command's goroutine (globalsearch.WorkerPanic), exits 1 as an
// internal error and prints the worker's stack, not the re-raise's.
func TestWorkerPanicExitsOneWithTheWorkersStack(t *testing.T) {
	cmds := map[string]cmdutil.Command[any]{"boom": {Run: func(context.Context, any, []string) error {
		panic(&globalsearch.WorkerPanic{Value: "model adapter bug", Stack: []byte("goroutine 7 [running]:\nadapter.Complete()\n")})
	}}}
	var errOut bytes.Buffer
	assert.Equal(t, 1, cmdutil.Dispatch[any](context.Background(), nil, cmds, []string{"boom"}, io.Discard, &errOut, nil))
	assert.Equal(t, "globalsearch boom: internal error: model adapter bug\ngoroutine 7 [running]:\nadapter.Complete()\n", errOut.String())
}
