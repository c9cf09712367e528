package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/recorded"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The rates of the fake model's tokenizer, which calibrate must recover.
const (
	fakeASCIIRate    = 3.8
	fakeNonASCIIRate = 1.2
	fakeModel        = "bedrock:fake-tokenizer-model"
)

// mixedIndex holds summaries from all ASCII to mostly Chinese, so that
// batches of one summary each separate the two rates.
func mixedIndex() indexfile.File {
	f := indexfile.File{Namespace: "mixed"}
	for i := range 12 {
		text := strings.Repeat("Harbour trade grew. ", 24-2*i) + strings.Repeat("港口贸易增长。", 3*i)
		f.Summaries = append(f.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c%02d", i), Summary: text})
	}
	return f
}

// fakeTokenizer is a Converse endpoint whose model counts every text it
// is sent at fakeASCIIRate and fakeNonASCIIRate characters a token.
func fakeTokenizer(c modeltest.ConverseCall) modeltest.ConverseReply {
	var sent strings.Builder
	raw, _ := json.Marshal(c.Body)
	var body struct {
		System   []struct{ Text string }
		Messages []struct{ Content []struct{ Text string } }
	}
	_ = json.Unmarshal(raw, &body)
	for _, s := range body.System {
		sent.WriteString(s.Text)
	}
	for _, m := range body.Messages {
		for _, p := range m.Content {
			sent.WriteString(p.Text)
		}
	}
	in := fakeCount(sent.String())
	if strings.Contains(sent.String(), "<community_data>") {
		return modeltest.ConverseText(`{"answer":"Trade grew [Data: Communities (c00)].","usefulness":60}`, in, 12)
	}
	return modeltest.ConverseText(`{"answer":"Trade grew."}`, in, 8)
}

// fakeCount is the fake tokenizer's count of text.
func fakeCount(text string) int {
	n := tokens.Of(text)
	return int(math.Round(float64(n.ASCII)/fakeASCIIRate + float64(n.NonASCII)/fakeNonASCIIRate))
}

// bedrockEnv points the AWS configuration chain at a fake Converse
// endpoint (and DynamoDB at endpoint, when set).
func bedrockEnv(t *testing.T, dynamoDB string) {
	server := modeltest.NewConverseServer(t, fakeTokenizer)
	testenv.UseAWS(t, map[string]string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": server.URL, "AWS_ENDPOINT_URL_DYNAMODB": dynamoDB})
}

// recordRun runs a search of the mixed index with model and returns its
// result JSON.
func recordRun(t *testing.T, model string) []byte {
	t.Helper()
	index := writeIndex(t, mixedIndex())
	budget := tokens.Estimate(globalsearch.DefaultPrompts().Map.Skeleton("What grew?")) + 160
	env, out, errOut := testEnv("")
	args := []string{"run", "--json", "--no-cache", "--index", index, "--query", "What grew?", "--model", model,
		"--map-budget", fmt.Sprint(budget), "--map-reserve", "0", "--no-shuffle",
		// The estimate packs the batches, whose ratios the fake tokenizer then reports.
		"--tokenizer", "estimate"}
	require.Equal(t, 0, runMain(context.Background(), env, args), errOut.String())
	return out.Bytes()
}

// A one-process run records usage against the estimate, and calibrate
// fits the fake tokenizer's rates back from the result file.
func TestCalibrateFromRunResults(t *testing.T) {
	bedrockEnv(t, "")
	data := recordRun(t, fakeModel)
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(data, &res))
	require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
	u := res.Diagnostics.Usage
	require.Equal(t, 12, res.Diagnostics.BatchCount, "one summary a batch")
	assert.Equal(t, fakeModel, u.ModelID)
	assert.Equal(t, 12, u.Map.Calls)
	assert.Equal(t, res.Diagnostics.Map.InputTokens, u.Map.ReportedInputTokens)
	assert.Greater(t, u.Map.WorstBatchRatio, u.Map.Ratio, "the most Chinese batch is the worst")
	require.NotNil(t, u.Map.WorstBatchIndex)
	worst := res.Diagnostics.Batches[*u.Map.WorstBatchIndex]
	for _, b := range res.Diagnostics.Batches {
		assert.LessOrEqual(t, b.NonASCIICodePoints, worst.NonASCIICodePoints)
	}
	assert.Equal(t, 1, u.Reduce.Calls)
	assert.Equal(t, res.Diagnostics.Reduce.InputTokens, u.Reduce.ReportedInputTokens)

	dir := t.TempDir()
	file := filepath.Join(dir, "result.json")
	require.NoError(t, os.WriteFile(file, data, 0o600))
	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"calibrate", "--json", file}), errOut.String())
	var got recorded.Fit
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, fakeModel, got.ModelID)
	assert.Equal(t, 1, got.Results)
	assert.Equal(t, 12, got.Calls)
	assert.True(t, got.ASCIIFitted && got.NonASCIIFitted)
	assert.InEpsilon(t, fakeASCIIRate, got.ASCIIRate, 0.01)
	assert.InEpsilon(t, fakeNonASCIIRate, got.NonASCIIRate, 0.01)
	assert.InDelta(t, 1, got.Headroom, 0.01)
	assert.Greater(t, got.Estimate.Worst, 1.1, "the estimate undercounts the fake's Chinese")

	env, out, errOut = testEnv(string(data))
	require.Equal(t, 0, runMain(context.Background(), env, []string{"calibrate", "-"}), errOut.String())
	text := out.String()
	assert.Contains(t, text, "fitted from 12 map calls in 1 result, model "+fakeModel+"\n")
	assert.Contains(t, text, "ASCII:     3.80 characters a token\n")
	assert.Contains(t, text, "non-ASCII: 1.20 characters a token\n")
	assert.Contains(t, text, "headroom:  1.00 (99% of the calls within the count at these rates x 1.00;")
}

// calibrate reads results from the runs table by query id, as the reduce
// function saved them.
func TestCalibrateFromTable(t *testing.T) {
	endpoint, _ := testenv.MinidynEndpoint(t)
	bedrockEnv(t, endpoint)
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(recordRun(t, fakeModel), &res))
	client := testenv.DynamoDBClient(t, endpoint)
	require.NoError(t, store.CreateTables(t.Context(), client, store.Tables{Runs: "runs"}))
	runs, err := store.NewRuns(store.NewClient(client), "runs")
	require.NoError(t, err)
	for _, id := range []string{"q-a", "q-b"} {
		res.QueryID = id
		require.NoError(t, runs.SaveResult(t.Context(), res, ""))
	}

	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(t.Context(), env, []string{"calibrate", "--json", "--table", "runs", "--query-id", "q-a,q-b"}), errOut.String())
	var got recorded.Fit
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, 2, got.Results)
	assert.Equal(t, 24, got.Calls)
	assert.InEpsilon(t, fakeNonASCIIRate, got.NonASCIIRate, 0.01)

	env, _, errOut = testEnv("")
	assert.Equal(t, 2, runMain(t.Context(), env, []string{"calibrate", "--table", "runs", "--query-id", "q-missing"}))
	assert.Contains(t, errOut.String(), "query id q-missing has no result in table runs")
}

// calibrate's flag refusals, and a file or fit refused is exit 2 with
// nothing on stdout (shared/recorded tests every file refusal).
func TestCalibrateRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	offline := globalsearch.Result{QueryID: "q-off"}
	offline.Diagnostics.Usage.ModelID = globalsearch.OfflineModelID
	offline.Diagnostics.Batches = []globalsearch.BatchSummary{{EstimatedTokens: 10, ASCIICodePoints: 40, ReportedInputTokens: 10}}
	offlineJSON, err := json.Marshal(offline)
	require.NoError(t, err)
	noCalls := write("nocalls.json", `{"queryId":"q-1","status":"failed","diagnostics":{"batches":[]}}`)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{name: "nothing to read", args: nil, want: "calibrate needs result files or --table with --query-id"},
		{name: "table without ids", args: []string{"--table", "runs"}, want: "--table needs --query-id"},
		{name: "ids without table", args: []string{"--query-id", "q", noCalls}, want: "--query-id needs --table"},
		{name: "quantile out of range", args: []string{"--quantile", "0", noCalls}, want: "--quantile 0 is not in (0, 1]"},
		{name: "not JSON", args: []string{write("bad.json", `{"queryId": "q-1", `)}, want: "bad.json: value 1 is not JSON"},
		{name: "a result without calls", args: []string{noCalls}, want: "no map call to calibrate from in 1 result"},
		{name: "offline results from standard input", args: []string{"-"}, stdin: string(offlineJSON),
			want: "every result is of the offline model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errOut := testEnv(tc.stdin)
			assert.Equal(t, 2, runMain(t.Context(), env, append([]string{"calibrate"}, tc.args...)))
			assert.Contains(t, errOut.String(), tc.want)
			assert.Empty(t, out.String())
		})
	}
}

// An offline run records usage too: the offline model reports the
// estimate, so every ratio is exactly 1.
func TestOfflineRunUsage(t *testing.T) {
	data := recordRun(t, "offline")
	var res globalsearch.Result
	require.NoError(t, json.Unmarshal(data, &res))
	u := res.Diagnostics.Usage
	assert.True(t, globalsearch.IsOfflineModelID(u.ModelID), u.ModelID)
	assert.Equal(t, 12, u.Map.Calls)
	assert.Equal(t, u.Map.EstimatedInputTokens, u.Map.ReportedInputTokens)
	assert.Equal(t, 1.0, u.Map.Ratio)
	assert.Equal(t, 1.0, u.Map.WorstBatchRatio)
	assert.Equal(t, 1.0, u.Reduce.Ratio)
}

// countTokensServer is a Bedrock runtime that only counts tokens, with the
// fake tokenizer: any inference call fails the test.
func countTokensServer(t *testing.T) (url string, counted func() int) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/count-tokens") {
			t.Errorf("unexpected %s %s: counting tokens makes no inference", r.Method, r.URL.Path)
			http.Error(w, "unexpected", http.StatusNotFound)
			return
		}
		var body struct {
			Input struct {
				Converse struct {
					System   []struct{ Text string }
					Messages []struct{ Content []struct{ Text string } }
				}
			}
		}
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		var sent strings.Builder
		for _, s := range body.Input.Converse.System {
			sent.WriteString(s.Text)
		}
		for _, m := range body.Input.Converse.Messages {
			for _, c := range m.Content {
				sent.WriteString(c.Text)
			}
		}
		mu.Lock()
		calls++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"inputTokens": %d}`, fakeCount(sent.String()))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() int { mu.Lock(); defer mu.Unlock(); return calls }
}

// calibrate --count-tokens plans a search and fits the rates from the
// model's own counts of its map prompts, with no inference.
func TestCalibrateCountTokens(t *testing.T) {
	bedrockEnv(t, "")
	url, counted := countTokensServer(t)
	t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
	index := writeIndex(t, mixedIndex())
	budget := tokens.Estimate(globalsearch.DefaultPrompts().Map.Skeleton("What grew?")) + 160
	plan := []string{"--index", index, "--query", "What grew?", "--map-budget", fmt.Sprint(budget), "--map-reserve", "0", "--no-shuffle", "--tokenizer", "estimate"}

	env, out, errOut := testEnv("")
	args := append([]string{"calibrate", "--count-tokens", "--json", "--model", fakeModel}, plan...)
	require.Equal(t, 0, runMain(t.Context(), env, args), errOut.String())
	var got recorded.Fit
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.True(t, got.CountedPlan)
	assert.Equal(t, fakeModel, got.ModelID)
	assert.Equal(t, 12, got.Calls)
	assert.Equal(t, 12, counted())
	assert.InEpsilon(t, fakeASCIIRate, got.ASCIIRate, 0.01)
	assert.InEpsilon(t, fakeNonASCIIRate, got.NonASCIIRate, 0.01)

	env, out, errOut = testEnv("")
	args = append([]string{"calibrate", "--count-tokens", "--model", fakeModel, "--quantile", "1"}, plan...)
	require.Equal(t, 0, runMain(t.Context(), env, args), errOut.String())
	assert.Contains(t, out.String(), "fitted from 12 planned map prompts counted with CountTokens (no inference), model "+fakeModel+"\n")
	assert.Contains(t, out.String(), "(100% of the calls within")

	refusals := []struct {
		name string
		args []string
		want string
	}{
		{"not a Bedrock model", append([]string{"--count-tokens", "--model", "offline"}, plan...), "--count-tokens counts with Bedrock's CountTokens"},
		{"not first", append([]string{"--json", "--count-tokens"}, index), "--count-tokens goes first"},
		{"bad quantile", append([]string{"--count-tokens", "--model", fakeModel, "--quantile", "2"}, plan...), "--quantile 2 is not in (0, 1]"},
		{"no query", []string{"--count-tokens", "--model", fakeModel, "--index", index}, "query must not be empty"},
	}
	before := counted()
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, 2, runMain(t.Context(), env, append([]string{"calibrate"}, tc.args...)))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
	assert.Equal(t, before, counted(), "a refused command counts nothing")
}
