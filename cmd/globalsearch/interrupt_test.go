package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptedRunPrintsItsSpend: Ctrl-C (SIGINT cancels the run's
// context) while map calls are in flight prints what the run spent, those
// calls included (docs/contract.md#cancel).
func TestInterruptedRunPrintsItsSpend(t *testing.T) {
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		calls.Add(1)
		interrupt() // the user presses Ctrl-C while the model thinks
		<-r.Context().Done()
	}))
	defer srv.Close()
	env, out, errOut := testEnv("")
	code := runMain(ctx, env, []string{"run", "--index", writeIndex(t, smallIndex()), "--query", "What changed?",
		"--model", "openai:llama3.1@" + srv.URL + "/v1", "--no-cache"})
	assert.Equal(t, 1, code)
	assert.Empty(t, out.String())
	made := calls.Load()
	require.Positive(t, made)
	assert.Contains(t, errOut.String(), "interrupted; spent so far: [status failed")
	assert.Contains(t, errOut.String(), count(int(made), "model call", "model calls")+", tokens in 0 out 0")
}
