package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// riePackage is the Lambda Runtime Interface Emulator at the version .ci/run
// installs; the test installs the same one when it is not on the machine.
const riePackage = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@v0.0.0-20261030222936-bef5c4ba774d"

// rieEnv enables TestBootstrapUnderRIE outside CI.
const rieEnv = "GRAPHRAG_RIE"

// rieModelID is the map function's model: any Bedrock id, the Converse
// double answers them all.
const rieModelID = "anthropic.claude-3-haiku-20240307-v1:0"

// TestBootstrapUnderRIE builds functions/prepare and functions/map the way
// the Makefile builds every function (CGO off, -tags lambda.norpc,
// -trimpath), for the host instead of arm64 so they run here, and invokes
// each once under aws-lambda-rie, as the state machine does up to the
// first map call: prepare with events/prepare.json, then map on the batch
// prepare planned. Their DynamoDB tables are in minidyn, the payload bucket
// in moto, the model behind a Converse double.
// It proves what the in-process tests cannot: each main's wiring reads
// its environment, the binaries speak the Runtime API, and init is quick.
// Both inits are components of the time to the first map call
// (docs/scale.md#first-map-call-components).
func TestBootstrapUnderRIE(t *testing.T) {
	if os.Getenv("CI") != "true" && os.Getenv(rieEnv) != "1" {
		t.Skipf("set %s=1 (or CI=true) to build functions/prepare and functions/map and run them under aws-lambda-rie", rieEnv)
	}
	rie := rieBinary(t)
	root := repoRoot(t)
	dir := t.TempDir()
	prepareBin := buildBootstrap(t, root, dir, "prepare")
	mapBin := buildBootstrap(t, root, dir, "map")

	ctx := context.Background()
	client, _ := testenv.MinidynServer(t)
	tables := store.Tables{Index: "rie-index", Runs: "rie-runs", MapCache: "rie-cache"}
	require.NoError(t, store.CreateTables(ctx, client, tables))
	c := store.NewClient(client)
	idx, err := store.NewIndex(c, tables.Index)
	require.NoError(t, err)
	runs, err := store.NewRuns(c, tables.Runs)
	require.NoError(t, err)
	// The batch texts go to a bucket of moto's (docs/contract.md#payloads-bucket).
	s3Endpoint := testenv.Moto(t, testenv.MotoOptions{})
	s3c := testenv.S3Client(t, s3Endpoint)
	bucket := testenv.NewBucket(t, s3c)
	payloads, err := store.NewPayloads(s3c, bucket)
	require.NoError(t, err)
	runs = runs.WithPayloads(payloads)
	require.NoError(t, idx.ReplaceNamespace(ctx, "sample", globalsearch.Records{Summaries: []globalsearch.Summary{
		{ID: "c1", Level: 0, Title: "Harbour", Summary: "The harbour doubled its trade."},
		{ID: "c2", Level: 0, Title: "Schools", Summary: "Three schools opened in the valley."},
	}}))
	bedrock := modeltest.NewConverseServer(t, modeltest.InOrder(mapAnswer("The harbour's trade doubled.", 70)))

	// Only what each function's template gives it, plus static credentials
	// and the emulators' endpoints: nothing of the machine's AWS setup.
	common := []string{
		"PATH=" + os.Getenv("PATH"),
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=" + aws.ToString(client.Options().BaseEndpoint),
		"AWS_ENDPOINT_URL_S3=" + s3Endpoint, "PAYLOAD_BUCKET=" + bucket,
		"RUNS_TABLE=" + tables.Runs, "RUNS_TTL_DAYS=7", "AWS_LAMBDA_FUNCTION_TIMEOUT=30",
	}
	event, err := os.ReadFile(filepath.Join(root, "events", "prepare.json"))
	require.NoError(t, err)
	prep := runUnderRIE(t, rie, prepareBin, append(common, "INDEX_TABLE="+tables.Index,
		"MAP_MAX_CONCURRENCY=8", "MAX_BATCHES=20000", "AWS_LAMBDA_FUNCTION_NAME=prepare"), event)

	var got workflow.PrepareOutput
	require.NoError(t, json.Unmarshal(prep.body, &got), "%s", prep.body)
	assert.Equal(t, "q-example-1", got.QueryID)
	assert.Equal(t, 1, got.BatchCount, "two short summaries fit one batch")
	assert.Equal(t, []int{0}, got.BatchIndexes)
	plan, err := runs.Plan(ctx, "q-example-1")
	require.NoError(t, err, "the bootstrap saved the plan in the runs table")
	assert.Equal(t, int64(42), plan.Params.ShuffleSeed)
	require.NotEmpty(t, plan.Batches[0].Content)
	bare, err := store.NewRuns(c, tables.Runs)
	require.NoError(t, err)
	_, err = bare.Batch(ctx, "q-example-1", 0)
	assert.ErrorContains(t, err, "payload bucket", "the bootstrap wrote the batch text to the bucket, not the table")

	// The map iteration's input, as the Map state builds it from prepare's output.
	mapEvent, err := json.Marshal(workflow.MapInput{QueryID: got.QueryID, RunID: got.RunID, BatchIndex: got.BatchIndexes[0], Attempt: 1})
	require.NoError(t, err)
	mapped := runUnderRIE(t, rie, mapBin, append(common, "MODEL_ID="+rieModelID, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME="+bedrock.URL,
		"MAP_CACHE_TABLE="+tables.MapCache, "MAP_CACHE_TTL_DAYS=30", "AWS_LAMBDA_FUNCTION_NAME=map"), mapEvent)
	var answer workflow.MapOutput
	require.NoError(t, json.Unmarshal(mapped.body, &answer), "%s", mapped.body)
	assert.Equal(t, workflow.MapOutput{BatchIndex: 0, Usefulness: 70}, answer)
	require.Equal(t, 1, bedrock.Count(), "the map bootstrap made one model call")
	assert.Contains(t, bedrock.Calls()[0].ModelID, rieModelID)
	assert.Contains(t, prettyBody(bedrock.Calls()[0].Body), "The harbour doubled its trade.", "the map call got the batch prepare saved")

	for _, fn := range []struct {
		name string
		run  rieRun
	}{{"prepare", prep}, {"map", mapped}} {
		assert.Positive(t, fn.run.report.duration, "%s: the emulator printed its REPORT line", fn.name)
		t.Logf("aws-lambda-rie: functions/%s first response after %s; invoke Duration %s; so start+init about %s (REPORT's own Init Duration: %s)",
			fn.name, fn.run.firstResponse.Round(time.Millisecond), fn.run.report.duration, fn.run.startInit().Round(time.Millisecond), fn.run.report.init)
	}
}

// prettyBody is a Converse request's JSON, for a substring check.
func prettyBody(body map[string]any) string {
	b, _ := json.Marshal(body)
	return string(b)
}

// buildBootstrap builds functions/<fn> as the Makefile does, for the host.
func buildBootstrap(t *testing.T, root, dir, fn string) string {
	t.Helper()
	bootstrap := filepath.Join(dir, fn, "bootstrap")
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", bootstrap, "./functions/"+fn)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build functions/%s:\n%s", fn, out)
	return bootstrap
}

// rieRun is one bootstrap's first invocation under aws-lambda-rie.
type rieRun struct {
	body []byte
	// firstResponse is from the emulator's start to the first response.
	firstResponse time.Duration
	report        rieReport
}

// startInit is the emulator's start, the process's start and the
// function's init (config, SDK clients). The REPORT line's Init Duration
// times only the emulator's dispatch of init (rie/handlers.go,
// InitHandler returns before the runtime is ready), so it reads
// microseconds; the honest figure is the first response less the invoke's
// own Duration.
func (r rieRun) startInit() time.Duration { return r.firstResponse - r.report.duration }

// runUnderRIE starts aws-lambda-rie on bootstrap with env, invokes it once
// with event, requires a 200 and stops the emulator when the test ends.
func runUnderRIE(t *testing.T, rie, bootstrap string, env []string, event []byte) rieRun {
	t.Helper()
	addr := testenv.FreeAddr(t)
	logs := &testenv.OutputBuffer{}
	cmd := exec.Command(rie, "--log-level", "error",
		"--runtime-interface-emulator-address", addr,
		"--runtime-api-address", testenv.FreeAddr(t),
		bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started := time.Now()
	require.NoError(t, cmd.Start())
	testenv.StopByPID(t, cmd)

	status, body := invokeRIE(t, "http://"+addr+"/2015-03-31/functions/function/invocations", event)
	run := rieRun{body: body, firstResponse: time.Since(started)}
	require.Equal(t, http.StatusOK, status, "%s\nRIE log:\n%s", body, logs.String())
	run.report = waitReport(logs, 2*time.Second)
	return run
}

// rieBinary finds aws-lambda-rie on PATH or in GOPATH/bin (where .ci/run
// installs it), or installs the pinned version into a temporary GOBIN.
func rieBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("aws-lambda-rie"); err == nil {
		return p
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	require.NoError(t, err)
	for _, p := range filepath.SplitList(string(bytes.TrimSpace(gopath))) {
		if bin := filepath.Join(p, "bin", "aws-lambda-rie"); isFile(bin) {
			return bin
		}
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", riePackage)
	install.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=")
	out, err := install.CombinedOutput()
	require.NoError(t, err, "aws-lambda-rie is not installed and go install %s failed:\n%s", riePackage, out)
	return filepath.Join(gobin, "aws-lambda-rie")
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// invokeRIE posts event once the emulator listens (it opens its port a
// moment after start; the function's init runs on the first invoke).
func invokeRIE(t *testing.T, url string, event []byte) (int, []byte) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := client.Post(url, "application/json", bytes.NewReader(event))
		if err == nil {
			defer resp.Body.Close()
			var b bytes.Buffer
			_, err = b.ReadFrom(resp.Body)
			require.NoError(t, err)
			return resp.StatusCode, b.Bytes()
		}
		var opErr *net.OpError
		if !errors.As(err, &opErr) || time.Now().After(deadline) {
			t.Fatalf("invoke %s: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var reportLine = regexp.MustCompile(`REPORT RequestId: \S+\s+(?:Init Duration: ([0-9.]+) ms\s+)?Duration: ([0-9.]+) ms`)

// rieReport is what the emulator's REPORT line says (-1 when absent).
type rieReport struct{ init, duration time.Duration }

// waitReport reads the emulator's REPORT line, which it prints (to stdout,
// whatever the log level) after the response.
func waitReport(logs *testenv.OutputBuffer, wait time.Duration) rieReport {
	ms := func(s string) time.Duration {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return -1
		}
		return time.Duration(f * float64(time.Millisecond))
	}
	deadline := time.Now().Add(wait)
	for {
		if m := reportLine.FindStringSubmatch(logs.String()); m != nil {
			return rieReport{init: ms(m[1]), duration: ms(m[2])}
		}
		if time.Now().After(deadline) {
			return rieReport{init: -1, duration: -1}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
