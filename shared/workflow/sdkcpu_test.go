package workflow_test

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/limits"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// envEmulatorAddr makes this test binary the emulators' process instead
// of a test run (TestMain): DynamoDB (minidyn, a server per partition) and
// the payload bucket over HTTP on that address, until it is stopped.
const envEmulatorAddr = "GLOBALSEARCH_EMULATOR_ADDR"

// envCPUProfile names a file for a CPU profile of deployedCPU's measured
// runs (go tool pprof reads it): where the function's CPU goes, without
// the ingest before them.
const envCPUProfile = "GLOBALSEARCH_CPU_PROFILE"

// cpuProfile profiles this process to path until the returned stop.
func cpuProfile(t testing.TB, path string) (stop func()) {
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, pprof.StartCPUProfile(f))
	return func() {
		pprof.StopCPUProfile()
		require.NoError(t, f.Close())
	}
}

func TestMain(m *testing.M) {
	if addr := os.Getenv(envEmulatorAddr); addr != "" {
		h := limits.Services(testenv.PartitionedMinidynHandler(limits.QueryPartition), limits.NewMemoryS3())
		err := http.ListenAndServe(addr, h)
		_, _ = os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// emulatorProcess starts this test binary as the emulators' process on a
// free loopback port and returns its endpoint; the test stops it by its
// PID.
func emulatorProcess(t testing.TB) string {
	t.Helper()
	addr := testenv.FreeAddr(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envEmulatorAddr+"="+addr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &testenv.OutputBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	exited := testenv.StopByPID(t, cmd)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "http://" + addr
		}
		select {
		case err := <-exited:
			t.Fatalf("the emulators' process exited before listening: %v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "the emulators' process did not listen on %s within 30 s\n%s", addr, out)
	}
}

// deployedCPU is what prepare and the first map task compute on AWS,
// the AWS SDK's share included: building, signing and sending every
// request and decoding every answer, which ownCPU's in-memory store
// leaves out. The emulators run in a process of their own, so the
// process CPU measured here is the client's alone; what it still leaves
// out is TLS (the emulators speak plain HTTP). Like ownCPU, prepare
// runs twice (the first pays for the heap's growth, as a cold start
// does) and then the map task answers batch 0 of the first plan.
// The index is read from path and dropped after the ingest, so no test
// data stays in the heap the measured runs collect, and prepare has
// clients of its own.
//
// With cores above one, the prepare is also played back (playedBack) on
// that many cores and on one, for the speedup the extra cores give.
func deployedCPU(t testing.TB, path string, cores int) deployed {
	t.Helper()
	endpoint := emulatorProcess(t)
	ctx := t.Context()
	tables := store.Tables{Index: "index", Runs: "runs"}
	namespace := ingestOver(t, testenv.DynamoDBClient(t, endpoint), tables, path)
	runtime.GC()
	debug.FreeOSMemory()

	// Each function gets clients of its own, as a cold start has: no
	// connection, no resolved endpoint or credentials left over from the
	// ingest or from the other function.
	idx, runs, bucket := coldStores(t, endpoint, tables)
	_, mapRuns, _ := coldStores(t, endpoint, tables)
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = namespace
	defaults.MaxModelCalls = globalsearch.MostModelCalls(workflow.DefaultMaxBatches)
	prepare := &workflow.Handlers{Engine: &globalsearch.Engine{Index: idx, Runs: runs, MaxBatches: workflow.DefaultMaxBatches}, Defaults: defaults, Items: bucket}
	mapper := &workflow.Handlers{Engine: &globalsearch.Engine{Model: &firstCallModel{}, Runs: mapRuns}}

	if path := os.Getenv(envCPUProfile); path != "" {
		stop := cpuProfile(t, path)
		defer stop()
	}
	var took [2]time.Duration
	var first workflow.PrepareOutput
	peak := memoryPeak()
	for i := range took {
		id := "deployed-cpu-" + string(rune('1'+i))
		req := measuredRequest(id)
		before := cpuTime()
		out, err := prepare.Prepare(ctx, workflow.PrepareInput{Request: req, ExecutionName: id})
		took[i] = cpuTime() - before
		require.NoError(t, err)
		if i == 0 {
			first = out
		}
	}
	peakBytes := peak()
	before := cpuTime()
	_, err := mapper.Map(ctx, workflow.MapInput{QueryID: first.QueryID, RunID: first.RunID, BatchIndex: 0, Attempt: 1})
	mapTask := cpuTime() - before
	require.NoError(t, err)
	d := deployed{PrepareFirst: took[0], PrepareSecond: took[1], MapTask: mapTask, Batches: first.BatchCount, PeakBytes: peakBytes, Cores: 1}
	if cores > 1 {
		d.Cores = cores
		d.PlayedOne, d.PlayedMany = playedBack(t, endpoint, tables, prepare, cores)
	}
	return d
}

// deployed is what deployedCPU measured: prepare's CPU in its first and
// second run, the map task's, the plan's batches, and the most memory the
// Go runtime held from the OS while prepare ran (the process holds nothing
// else then), which prepare's MemorySize must hold.
// With Cores above one, PlayedOne and PlayedMany are the wall times of
// prepares played back on one core and on Cores.
type deployed struct {
	PrepareFirst, PrepareSecond, MapTask time.Duration
	Batches                              int
	PeakBytes                            uint64
	Cores                                int
	PlayedOne, PlayedMany                []time.Duration
}

// speedup is how much faster the played-back prepare ran on d.Cores than
// on one: 1 when it was not played back.
func (d deployed) speedup() float64 {
	if d.Cores <= 1 {
		return 1
	}
	var one, many time.Duration
	for _, w := range d.PlayedOne {
		one += w
	}
	for _, w := range d.PlayedMany {
		many += w
	}
	return one.Seconds() / many.Seconds()
}

// memoryPeak samples the memory the Go runtime has mapped from the OS
// every 5 ms until the returned func, which reports the most it saw.
func memoryPeak() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	done, most := make(chan struct{}), make(chan uint64)
	go func() {
		peak := read()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				peak = max(peak, read())
			case <-done:
				most <- max(peak, read())
				return
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-most
	}
}

// ingestOver creates tables on db and ingests the index at path into
// them, returning its namespace; nothing of the index stays referenced.
func ingestOver(t testing.TB, db *dynamodb.Client, tables store.Tables, path string) string {
	t.Helper()
	require.NoError(t, store.CreateTables(t.Context(), db, tables))
	idx, err := store.NewIndex(store.NewClient(db), tables.Index)
	require.NoError(t, err)
	f, err := indexfile.Load(path)
	require.NoError(t, err)
	require.NoError(t, idx.ReplaceNamespace(t.Context(), f.Namespace, f.Records))
	return f.Namespace
}

// coldStores are the stores a function opens at its init, over new SDK
// clients of the emulators at endpoint, the runs' texts in the bucket.
func coldStores(t testing.TB, endpoint string, tables store.Tables) (*store.Index, *store.Runs, *store.Payloads) {
	t.Helper()
	c := store.NewClient(testenv.DynamoDBClient(t, endpoint))
	idx, err := store.NewIndex(c, tables.Index)
	require.NoError(t, err)
	runs, err := store.NewRuns(c, tables.Runs)
	require.NoError(t, err)
	bucket, err := store.NewPayloads(testenv.S3Client(t, endpoint), "payloads")
	require.NoError(t, err)
	return idx, runs.WithPayloads(bucket), bucket
}
