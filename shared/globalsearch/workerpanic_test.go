package globalsearch_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestWorkerPanicReachesTheCaller: a model that panics inside a map worker
// is a bug. Left in the worker goroutine it ends the process past every
// recover (the CLI would exit 2, like invalid input); the pool raises it
// again on Search's goroutine as a *WorkerPanic with the worker's stack,
// and stops starting calls.
func TestWorkerPanicReachesTheCaller(t *testing.T) {
	tests := []struct {
		name    string
		panicOn func(call int) bool
		auto    bool // the adaptive pool (docs/contract.md#auto-concurrency) does the same
	}{
		{"one batch", func(call int) bool { return call == 2 }, false},
		{"every batch", func(int) bool { return true }, false},
		{"one batch, auto", func(call int) bool { return call == 2 }, true},
		{"every batch, auto", func(int) bool { return true }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			model := &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
				if req.Stage == gs.StageMap && tc.panicOn(int(calls.Add(1))) {
					panic("model adapter bug")
				}
				return answerEverything(req, call)
			}}
			e, _ := newEngine(t, leafNamespace(6), model)
			if tc.auto {
				e.AutoConcurrency = &gs.AutoConcurrency{Ceiling: 2}
			}
			p := oneBatchPerSummary(t, "Which themes?", func(r *gs.Request) {
				two := 2
				r.MapConcurrency = &two
			})

			var recovered any
			func() {
				defer func() { recovered = recover() }()
				_, _ = e.Search(context.Background(), p)
			}()
			require.NotNil(t, recovered, "the panic reaches the caller")
			wp, ok := recovered.(*gs.WorkerPanic)
			require.True(t, ok, "raised as *WorkerPanic, got %T", recovered)
			assert.Equal(t, "model adapter bug", wp.Value)
			assert.Contains(t, wp.Error(), "map worker panicked: model adapter bug")
			assert.True(t, strings.Contains(string(wp.Stack), "workerpanic_test.go"), "the worker's own stack")
			assert.Less(t, calls.Load(), int64(2*6), "no batch is retried after the panic")
		})
	}
}
