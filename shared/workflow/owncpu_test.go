package workflow_test

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// Lambda allocates CPU in proportion to memory: 1,769 MB is one full vCPU
// (AWS Lambda Developer Guide, "Configure Lambda function memory"), so a
// function of m MB computes at m/1769 of a core below that.
const (
	lambdaMBPerVCPU  = 1769
	prepareMemoryMB  = 1024 // template.yaml's PrepareFunction MemorySize
	envOwnCPUSummary = "GLOBALSEARCH_OWNCPU_SUMMARIES"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPrepareOwnCPU times the project's own prepare (docs/scale.md#first-map-call-components):
// the prepare handler over the in-memory store, so no emulator's share is
// in it, as process CPU (the machine's load stretches wall time, not
// this). It reports what that CPU takes on prepare's Lambda at its
// configured memory, one component of the time to the first map call.
// It plans 1,000 summaries, or $GLOBALSEARCH_OWNCPU_SUMMARIES.
func TestPrepareOwnCPU(t *testing.T) {
	n := 1000
	if v := os.Getenv(envOwnCPUSummary); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, envOwnCPUSummary)
	}
	f := generated(t, n)
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(t.Context(), f.Namespace, f.Records))
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = f.Namespace
	defaults.MaxModelCalls = globalsearch.MostModelCalls(workflow.DefaultMaxBatches)
	h := &workflow.Handlers{Engine: &globalsearch.Engine{Index: s, Runs: s, MaxBatches: workflow.DefaultMaxBatches},
		Defaults: defaults, Items: &mapItems{}}
	// A warm-up, as a Lambda's second invocation: the first pays for
	// the heap's growth, which a cold start's init does not cover either,
	// so both are reported.
	cold := cpuTime()
	_, err := h.Prepare(t.Context(), workflow.PrepareInput{Request: []byte(`{"query":"What are the main themes?","queryId":"own-cpu-1"}`), ExecutionName: "own-cpu-1"})
	require.NoError(t, err)
	first := cpuTime() - cold
	warm := cpuTime()
	out, err := h.Prepare(t.Context(), workflow.PrepareInput{Request: []byte(`{"query":"What are the main themes?","queryId":"own-cpu-2"}`), ExecutionName: "own-cpu-2"})
	require.NoError(t, err)
	second := cpuTime() - warm
	require.Positive(t, out.BatchCount)
	share := float64(prepareMemoryMB) / lambdaMBPerVCPU
	t.Logf("summaries %d, batches %d: prepare's own CPU %.3f s first, %.3f s second; on %d MB (%.2f vCPU) %.2f s first, %.2f s second",
		n, out.BatchCount, first.Seconds(), second.Seconds(), prepareMemoryMB, share, first.Seconds()/share, second.Seconds()/share)
	assert.Positive(t, first)
	assert.Positive(t, second)
}
