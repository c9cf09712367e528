package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// TestPrepareChoosesMapMode: a plan the inline Map's history budget holds
// runs inline; a larger one runs in the Distributed Map, and only then does
// prepare hand the state machine a TTL for the failure items it writes
// (docs/contract.md#state-machine).
func TestPrepareChoosesMapMode(t *testing.T) {
	cases := []struct {
		name      string
		inlineMax int // Handlers.InlineMaxBatches; the fixture plans 3 batches
		wantMode  string
	}{
		{"within the inline budget", 0, workflow.ModeInline},
		{"exactly the inline budget", 3, workflow.ModeInline},
		{"past the inline budget", 2, workflow.ModeDistributed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := fixture(t, answering(50))
			h.InlineMaxBatches = tc.inlineMax
			h.RunsTTL = 48 * time.Hour
			items := &mapItems{}
			h.Items = items
			before := time.Now()
			out, err := invoke(t, h.Prepare, `{"request":{"query":"q"},"executionName":"exec"}`)
			require.NoError(t, err)
			var got workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.Equal(t, 3, got.BatchCount)
			assert.Equal(t, tc.wantMode, got.Mode)
			if tc.wantMode == workflow.ModeInline {
				assert.Zero(t, got.ExpiresAt)
				assert.Equal(t, []int{0, 1, 2}, got.BatchIndexes, "the inline Map's items")
				assert.Empty(t, got.ItemsKey)
				assert.Empty(t, items.asked, "nothing written to the bucket")
				return
			}
			assert.GreaterOrEqual(t, got.ExpiresAt, before.Add(h.RunsTTL).Unix())
			assert.LessOrEqual(t, got.ExpiresAt, time.Now().Add(h.RunsTTL).Unix())
			// docs/contract.md#payloads-bucket: the Distributed Map reads its
			// items from the bucket, so no state lists them.
			assert.Nil(t, got.BatchIndexes)
			assert.Equal(t, []string{"exec/" + got.RunID + "/3"}, items.asked)
			assert.Equal(t, "items-of-exec", got.ItemsKey)
		})
	}
}

// TestPrepareAcceptsLargePlanInDistributedMode: a 5,000-batch plan, refused
// before (past the inline Map's budget), is accepted under the deployment
// default and runs distributed; one past the deployment's limit is still
// refused with the numbers.
func TestPrepareAcceptsLargePlanInDistributedMode(t *testing.T) {
	const n = 5000
	s := memstore.New()
	var summaries []globalsearch.Summary
	text := func(i int) string {
		return strings.Repeat(fmt.Sprintf("Community %d reports steady growth in trade and river transport. ", i), 8)
	}
	for i := range n {
		summaries = append(summaries, globalsearch.Summary{ID: fmt.Sprintf("c%05d", i), Summary: text(i)})
	}
	require.NoError(t, s.ReplaceNamespace(context.Background(), "big", globalsearch.Records{Summaries: summaries}))
	// One summary, its section header and some slack fill one batch.
	one := tokens.Estimate(text(n))
	budget := tokens.Estimate(globalsearch.DefaultPrompts().Map.Skeleton("q")) + one + one/2
	request := fmt.Sprintf(`{"request":{"query":"q","namespace":"big","shuffle":false,"mapTokenBudget":%d,"mapOutputReserve":0},"executionName":"exec"}`, budget)

	for _, tc := range []struct {
		name       string
		maxBatches int
		wantErr    string
	}{
		{"deployment default", workflow.DefaultMaxBatches, ""},
		{"deployment limit below the plan", n - 1, fmt.Sprintf("the plan needs %d map batches but the state machine runs at most %d", n, n-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A deployment that allows such plans raises its model-call
			// ceiling with MaxBatches; the batch limit is what this tests.
			defaults := globalsearch.SpecDefaults
			defaults.MaxModelCalls = globalsearch.MostModelCalls(n)
			items := &mapItems{}
			h := &workflow.Handlers{Engine: &globalsearch.Engine{Index: s, Runs: s, MaxBatches: tc.maxBatches}, Defaults: defaults, Items: items}
			out, err := invoke(t, h.Prepare, request)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, "PlanTooLargeError", workflow.ErrorType(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			var got workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.Equal(t, n, got.BatchCount)
			assert.Empty(t, got.BatchIndexes)
			assert.Equal(t, []string{fmt.Sprintf("exec/%s/%d", got.RunID, n)}, items.asked)
			assert.Equal(t, workflow.ModeDistributed, got.Mode)
		})
	}
}

// TestPrepareOutputFitsAState: prepare's output lists the batch indexes
// only for the inline Map, whose largest plan (InlineMaxBatches, with the
// longest ids) must leave room in a state's 256 KiB for what the states
// after it add: a caught error's cause (Lambda truncates it to 32 KiB) and
// the Map's results (inline). A distributed plan's output names the items object
// instead, so its size does not grow with the plan up to MaxBatchesLimit.
func TestPrepareOutputFitsAState(t *testing.T) {
	long := func(mode string, n int) workflow.PrepareOutput {
		out := workflow.PrepareOutput{
			QueryID: strings.Repeat("q", 80), RunID: strings.Repeat("r", 32), BatchCount: n,
			MapConcurrency: 10_000, Mode: mode,
		}
		if mode == workflow.ModeInline {
			out.BatchIndexes = make([]int, n)
			for i := range out.BatchIndexes {
				out.BatchIndexes[i] = i
			}
			return out
		}
		out.ExpiresAt = time.Now().Add(10 * 365 * 24 * time.Hour).Unix()
		out.ItemsKey = "runs/" + out.QueryID + "/" + out.RunID + "/map-items-" + fmt.Sprint(n) + ".json"
		return out
	}
	for _, tc := range []struct {
		mode string
		n    int
	}{
		{workflow.ModeInline, workflow.InlineMaxBatches},
		{workflow.ModeDistributed, workflow.MaxBatchesLimit},
	} {
		raw, err := json.Marshal(long(tc.mode, tc.n))
		require.NoError(t, err)
		t.Logf("prepare's output for %d batches (%s): %d bytes", tc.n, tc.mode, len(raw))
		results := 0 // the Distributed Map's results stay out of the state
		if tc.mode == workflow.ModeInline {
			// A caught failure, the longest result: {"failed":true,"batchIndex":599,"error":"Lambda.TooManyRequestsException"}.
			results = tc.n * 80
		}
		assert.LessOrEqual(t, len(raw)+32<<10+results, 256<<10, tc.mode)
	}

	// The default deployment's largest plan needs the Distributed Map, and
	// the functions accept it as MAX_BATCHES; one past the limit they refuse.
	assert.Equal(t, workflow.ModeDistributed, globalsearch.MapMode(workflow.DefaultMaxBatches, 0, 0))
	env := func(maxBatches int) func(string) (string, bool) {
		return func(k string) (string, bool) {
			v, ok := map[string]string{"RUNS_TABLE": "runs", "RUNS_TTL_DAYS": "7", "MAX_BATCHES": fmt.Sprint(maxBatches)}[k]
			return v, ok
		}
	}
	c, err := workflow.ConfigFromEnv(env(workflow.DefaultMaxBatches), workflow.EnvMaxBatches)
	require.NoError(t, err)
	assert.Equal(t, workflow.DefaultMaxBatches, c.MaxBatches)
	_, err = workflow.ConfigFromEnv(env(workflow.MaxBatchesLimit+1), workflow.EnvMaxBatches)
	assert.ErrorContains(t, err, fmt.Sprintf("MAX_BATCHES must be at most %d", workflow.MaxBatchesLimit))
}

// mapItems is a MapItems that records what it was asked to write.
type mapItems struct {
	asked []string
	err   error
}

func (m *mapItems) PutMapItems(_ context.Context, queryID, runID string, batches int) (string, error) {
	m.asked = append(m.asked, fmt.Sprintf("%s/%s/%d", queryID, runID, batches))
	return "items-of-" + queryID, m.err
}

// TestPrepareCannotWriteMapItems: a distributed plan whose items cannot be
// written fails prepare with a named error the state machine retries or
// records; nothing runs on a list that is not there.
func TestPrepareCannotWriteMapItems(t *testing.T) {
	for _, tc := range []struct {
		name     string
		items    workflow.MapItems
		wantType string
		wantMsg  string
	}{
		{"no bucket wired", nil, "InternalError", "cannot write a Distributed Map's items"},
		{"bucket throttled", &mapItems{err: globalsearch.Errorf(globalsearch.KindThrottled, "SlowDown")}, "ThrottledError", "SlowDown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := fixture(t, answering(50))
			h.InlineMaxBatches = 2
			h.Items = tc.items
			_, err := invoke(t, h.Prepare, `{"request":{"query":"q"},"executionName":"exec"}`)
			require.Error(t, err)
			assert.Equal(t, tc.wantType, workflow.ErrorType(err))
			assert.ErrorContains(t, err, tc.wantMsg)
		})
	}
}

// recorded is a RecordedFailures with fixed contents.
type recorded struct {
	failures map[int]string
	err      error
	asked    []string
}

func (r *recorded) MapFailures(_ context.Context, queryID, runID string) (map[int]string, error) {
	r.asked = append(r.asked, queryID+"/"+runID)
	return r.failures, r.err
}

// TestReduceDistributed: after a Distributed Map, reduce takes the failed
// batches from the runs table (what RecordBatchFailure wrote for this run),
// never from a payload; a batch with neither an answer nor a recorded
// failure counts as failed too.
func TestReduceDistributed(t *testing.T) {
	cases := []struct {
		name       string
		answered   []int // batches the map function answered
		failures   *recorded
		payload    func(runID string) string
		wantType   string
		wantMsg    string
		wantStatus globalsearch.Status
		wantFailed map[int]string // batch -> part of its message
	}{
		{name: "one recorded failure", answered: []int{0, 2}, failures: &recorded{failures: map[int]string{1: "ModelError"}},
			wantStatus: globalsearch.StatusPartial, wantFailed: map[int]string{1: "last with ModelError"}},
		{name: "every batch answered", answered: []int{0, 1, 2}, failures: &recorded{},
			wantStatus: globalsearch.StatusCompleted, wantFailed: map[int]string{}},
		{name: "a batch with no record at all", answered: []int{0, 1}, failures: &recorded{},
			wantStatus: globalsearch.StatusPartial, wantFailed: map[int]string{2: "no map answer was recorded"}},
		{name: "every batch failed", failures: &recorded{failures: map[int]string{0: "ModelError", 1: "States.Timeout", 2: "Lambda.TooManyRequestsException"}},
			wantType: "AllBatchesFailedError", wantStatus: globalsearch.StatusFailed,
			wantFailed: map[int]string{0: "ModelError", 1: "States.Timeout", 2: "Lambda.TooManyRequestsException"}},
		{name: "the failures cannot be read", answered: []int{0, 1, 2}, failures: &recorded{err: globalsearch.Errorf(globalsearch.KindThrottled, "runs table busy")},
			wantType: "ThrottledError", wantMsg: "runs table busy"},
		{name: "no reader configured", answered: []int{0, 1, 2},
			wantType: "InternalError", wantMsg: "cannot read recorded map failures"},
		{name: "map results beside distributed mode", answered: []int{0, 1, 2}, failures: &recorded{},
			payload: func(runID string) string {
				return `{"queryId":"q1","runId":"` + runID + `","mode":"distributed","mapResults":[{"batchIndex":1,"failed":true,"error":"ModelError"}]}`
			},
			wantType: "InvalidInputError", wantMsg: "reads its failures from the runs table"},
		{name: "distributed without a run id", failures: &recorded{},
			payload:  func(string) string { return `{"queryId":"q1","mode":"distributed","mapResults":[]}` },
			wantType: "InvalidInputError", wantMsg: "needs a runId"},
		{name: "unknown mode", failures: &recorded{},
			payload: func(runID string) string {
				return `{"queryId":"q1","runId":"` + runID + `","mode":"sideways","mapResults":[]}`
			},
			wantType: "InvalidInputError", wantMsg: `mode "sideways"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s := fixture(t, answering(50))
			if tc.failures != nil {
				h.Failures = tc.failures
			}
			out, err := invoke(t, h.Prepare, `{"request":{"query":"what changed?","queryId":"q1","shuffle":false}}`)
			require.NoError(t, err)
			var prepared workflow.PrepareOutput
			require.NoError(t, json.Unmarshal([]byte(out), &prepared))
			for _, i := range tc.answered {
				_, err := invoke(t, h.Map, fmt.Sprintf(`{"queryId":"q1","runId":%q,"batchIndex":%d,"attempt":1}`, prepared.RunID, i))
				require.NoError(t, err)
			}
			payload := `{"queryId":"q1","runId":"` + prepared.RunID + `","mode":"distributed","mapResults":[]}`
			if tc.payload != nil {
				payload = tc.payload(prepared.RunID)
			}
			_, err = invoke(t, h.Reduce, payload)
			if tc.wantType != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantType, workflow.ErrorType(err))
				assert.Contains(t, err.Error(), tc.wantMsg)
			} else {
				require.NoError(t, err)
			}
			if tc.wantFailed == nil {
				_, rerr := s.Result(context.Background(), "q1")
				assert.Error(t, rerr, "a refused reduce saves no result")
				return
			}
			assert.Equal(t, []string{"q1/" + prepared.RunID}, tc.failures.asked, "the failures of this run")
			res, err := s.Result(context.Background(), "q1")
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, res.Status)
			got := map[int]string{}
			for _, f := range res.MapErrors {
				got[f.BatchIndex] = f.Message
			}
			require.Len(t, got, len(tc.wantFailed))
			for i, want := range tc.wantFailed {
				assert.Contains(t, got[i], want, "batch %d", i)
			}
		})
	}
}
