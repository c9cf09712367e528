package workflow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// Lambda allocates CPU in proportion to memory: 1,769 MB is one full vCPU
// (AWS Lambda Developer Guide, "Configure Lambda function memory"), so a
// function of m MB computes at m/1769 of a core below that.
const (
	lambdaMBPerVCPU  = 1769
	envOwnCPUSummary = "GLOBALSEARCH_OWNCPU_SUMMARIES"
)

// templateMemoryMB is the MemorySize template.yaml gives function (a
// parameter's default when it names one), so the figures follow the
// deployment instead of a copy of its number.
func templateMemoryMB(t testing.TB, function string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "template.yaml"))
	require.NoError(t, err)
	// The resource's block runs from its name to the next line indented as
	// little, so a resource without a MemorySize never reads the next one's.
	block := regexp.MustCompile(`(?m)^  ` + function + `:\n((?:(?:    .*)?\n)*)`).FindSubmatch(raw)
	require.NotNil(t, block, "template.yaml has a resource %s", function)
	m := regexp.MustCompile(`(?m)^      MemorySize: (\d+)$`).FindSubmatch(block[1])
	if ref := regexp.MustCompile(`(?m)^      MemorySize: !Ref (\w+)$`).FindSubmatch(block[1]); ref != nil {
		// A parameter's: its default, what a deployment without overrides gets.
		param := regexp.MustCompile(`(?m)^  ` + string(ref[1]) + `:\n(?:    .*\n)*?    Default: (\d+)$`).FindSubmatch(raw)
		require.NotNil(t, param, "template.yaml has a parameter %s with a default", ref[1])
		m = param
	}
	require.NotNil(t, m, "template.yaml gives %s a MemorySize", function)
	mb, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	return mb
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Components of the time to the first map call that the simulated clock
// does not see (docs/scale.md#first-map-call-components), added to its
// figure. prepareInit and mapInit are the two bootstraps' start and init
// on the way to the first map call (prepare's, then the first map
// iteration's, each a cold start), measured by TestBootstrapUnderRIE
// (shared/workflow/e2e) under aws-lambda-rie: the first response less the
// invoke's own Duration, 23-28 ms each over six runs. RIE has no sandbox
// to start, so the sandbox's own start on AWS is not in them.
// sfnTransitions is the five transitions from the execution's start to
// the Map's first lambda:invoke (start, Prepare's task, the Choice, the
// Map's start, its first iteration), at an assumed 40 ms each: AWS
// documents no per-transition latency, for Standard or Express workflows
// (the pages checked are listed there).
const (
	prepareInit    = 26 * time.Millisecond
	mapInit        = 26 * time.Millisecond
	sfnTransitions = 5 * 40 * time.Millisecond
	envPrepareMB   = "GLOBALSEARCH_PREPARE_MEMORY_MB"
	envOwnCPULevel = "GLOBALSEARCH_OWNCPU_LEVEL" // communityLevel as JSON: 0, "graphrag:1"
)

// prepareMemory is the prepare function's memory the figures are scaled
// to: template.yaml's, or $GLOBALSEARCH_PREPARE_MEMORY_MB.
func prepareMemory(t testing.TB) int {
	mb := templateMemoryMB(t, "PrepareFunction")
	if v := os.Getenv(envPrepareMB); v != "" {
		var err error
		mb, err = strconv.Atoi(v)
		require.NoError(t, err, envPrepareMB)
		require.Positive(t, mb, envPrepareMB)
	}
	return mb
}

// vCPUShare is the share of a core a Lambda of mb MB computes with, one
// full vCPU at most.
func vCPUShare(mb int) float64 { return min(1, float64(mb)/lambdaMBPerVCPU) }

// prepareCores is how many whole cores prepare's Lambda of mb MB has, as
// many as this machine can play a prepare back on (deployedCPU): one up
// to 3,537 MB, two from 3,538.
func prepareCores(mb int) int {
	return max(1, min(mb/lambdaMBPerVCPU, runtime.NumCPU()))
}

// prepareSeconds is what cpu, a run of d's prepare's process CPU, takes on
// its Lambda of mb MB: at the vCPU share up to one vCPU; beyond, divided
// by the speedup its played-back runs got from the extra cores (the
// goroutines that read the partitions and the collector run beside the
// rest; the planning itself is one goroutine's work).
func prepareSeconds(cpu time.Duration, d deployed, mb int) float64 {
	return cpu.Seconds() / vCPUShare(mb) / d.speedup()
}

// levelField is the request's communityLevel field, from
// $GLOBALSEARCH_OWNCPU_LEVEL (JSON: 0, "graphrag:1"), or none (the
// leaves): at 100,000 summaries the leaves' map texts pass the
// deployment's ceiling, and a coarser level is what such a namespace is
// searched at.
func levelField() string {
	if v := os.Getenv(envOwnCPULevel); v != "" {
		return `,"communityLevel":` + v
	}
	return ""
}

// measuredRequest is the search every figure of prepare times, under
// queryID: one seed, so that every store plans the same batches.
func measuredRequest(queryID string) []byte {
	return []byte(`{"query":"What are the main themes?","shuffleSeed":1,"queryId":"` + queryID + `"` + levelField() + `}`)
}

// ownCPU is the project's own prepare of f's namespace: the prepare
// handler over the in-memory store, so no emulator's share is in it, as
// process CPU (the machine's load stretches wall time, not this). It runs
// twice and returns both: the first pays for the heap's growth, which a
// cold start's init does not cover either; the second is a warm Lambda's.
func ownCPU(t testing.TB, f indexfile.File) (first, second time.Duration, batches int) {
	t.Helper()
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(t.Context(), f.Namespace, f.Records))
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = f.Namespace
	defaults.MaxModelCalls = globalsearch.MostModelCalls(workflow.DefaultMaxBatches)
	h := &workflow.Handlers{Engine: &globalsearch.Engine{Index: s, Runs: s, MaxBatches: workflow.DefaultMaxBatches},
		Defaults: defaults, Items: &mapItems{}}
	var took [2]time.Duration
	for i := range took {
		id := fmt.Sprintf("own-cpu-%d", i+1)
		before := cpuTime()
		req := measuredRequest(id)
		out, err := h.Prepare(t.Context(), workflow.PrepareInput{Request: req, ExecutionName: id})
		require.NoError(t, err)
		took[i] = cpuTime() - before
		batches = out.BatchCount
	}
	return took[0], took[1], batches
}

// TestPrepareCPU times prepare (docs/scale.md#first-map-call-components):
// the project's own functions over the in-memory store, and the whole of
// what the deployed function computes, the AWS SDK's share included, over
// the emulators in a process of their own; and reports what that CPU takes
// on prepare's Lambda at its configured memory, or
// $GLOBALSEARCH_PREPARE_MEMORY_MB: one component of the time to the first
// map call. It plans 1,000 summaries, or $GLOBALSEARCH_OWNCPU_SUMMARIES, at
// the leaves or $GLOBALSEARCH_OWNCPU_LEVEL.
func TestPrepareCPU(t *testing.T) {
	n := 1000
	if v := os.Getenv(envOwnCPUSummary); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, envOwnCPUSummary)
	}
	path := generatedFile(t, n)
	mb := prepareMemory(t)
	d := deployedCPU(t, path, prepareCores(mb))
	f, err := indexfile.Load(path)
	require.NoError(t, err)
	first, second, batches := ownCPU(t, f)
	assert.Equal(t, batches, d.Batches, "the in-memory store and DynamoDB plan alike")
	share := vCPUShare(mb) // the own functions are one goroutine's work: no speedup
	t.Logf("summaries %d, batches %d, prepare on %d MB (%.2f vCPU)", n, batches, mb, float64(mb)/lambdaMBPerVCPU)
	if d.Cores > 1 {
		t.Logf("  played back: %v on one core, %v on %d: %.2fx", d.PlayedOne, d.PlayedMany, d.Cores, d.speedup())
	}
	t.Logf("  own functions: %.3f s CPU first, %.3f s second: %.2f s and %.2f s on the Lambda", first.Seconds(), second.Seconds(), first.Seconds()/share, second.Seconds()/share)
	t.Logf("  with the AWS SDK: %.3f s CPU first, %.3f s second: %.2f s and %.2f s on the Lambda; memory peaked at %.0f MB",
		d.PrepareFirst.Seconds(), d.PrepareSecond.Seconds(), prepareSeconds(d.PrepareFirst, d, mb), prepareSeconds(d.PrepareSecond, d, mb), float64(d.PeakBytes)/(1<<20))
	mapMB := templateMemoryMB(t, "MapFunction")
	t.Logf("  the first map task: %.3f s CPU: %.3f s on %d MB", d.MapTask.Seconds(), d.MapTask.Seconds()/vCPUShare(mapMB), mapMB)
	// The SDK's work is on top of the project's, never instead of it.
	assert.Greater(t, d.PrepareFirst, first, "the deployed prepare computes more than its own functions")
	assert.Positive(t, d.MapTask)
	assert.Less(t, float64(d.PeakBytes)/(1<<20), float64(mb), "prepare fits its memory")
}
