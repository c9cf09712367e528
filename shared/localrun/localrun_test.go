package localrun_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/localrun"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// gatedModel answers as the offline model once its gate is closed; until
// then every call waits, and entered hears of each call that waits.
type gatedModel struct {
	gate    chan struct{}
	entered chan struct{}
	panics  bool
	calls   atomic.Int64
}

func (m *gatedModel) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if m.panics {
		panic("model bug")
	}
	m.calls.Add(1)
	select {
	case m.entered <- struct{}{}:
	default:
	}
	select {
	case <-m.gate:
		return offline.New().Complete(ctx, req)
	case <-ctx.Done():
		return globalsearch.ModelResponse{}, context.Cause(ctx)
	}
}

type fixture struct {
	store   *memstore.Store
	model   *gatedModel
	starter *localrun.Starter
	ns      string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f, err := indexfile.Load("../../testdata/sample-index.json")
	require.NoError(t, err)
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	m := &gatedModel{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	e := &globalsearch.Engine{Index: s, Runs: s, Model: m}
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = f.Namespace
	st := localrun.New(t.Context(), e, defaults)
	t.Cleanup(st.Close)
	return &fixture{store: s, model: m, starter: st, ns: f.Namespace}
}

// input is a request as the API passes it: resolved, id and seed fixed.
func (f *fixture) input(t *testing.T, id, query string) []byte {
	t.Helper()
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = f.ns
	p, err := globalsearch.ParseRequestWithID([]byte(`{"query":`+quote(query)+`}`), defaults, id)
	require.NoError(t, err)
	data, err := json.Marshal(p)
	require.NoError(t, err)
	return data
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func (f *fixture) status(t *testing.T, id string) string {
	t.Helper()
	status, _, err := f.starter.Execution(context.Background(), id)
	require.NoError(t, err)
	return status
}

// wait blocks until the execution id has ended.
func (f *fixture) wait(t *testing.T, id string) {
	t.Helper()
	done := f.starter.Done(id)
	require.NotNil(t, done)
	<-done
}

func TestStartRunsTheSearchToItsResult(t *testing.T) {
	f := newFixture(t)
	in := f.input(t, "q-1", "What are the main themes?")
	require.NoError(t, f.starter.Start(context.Background(), "q-1", in))
	<-f.model.entered
	assert.Equal(t, localrun.StatusRunning, f.status(t, "q-1"))
	_, err := f.store.Result(context.Background(), "q-1")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound, "no result while the model is gated")

	close(f.model.gate)
	// A repeated start with the same input starts nothing new.
	require.NoError(t, f.starter.Start(context.Background(), "q-1", in))
	f.wait(t, "q-1")
	res, err := f.store.Result(context.Background(), "q-1")
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusCompleted, res.Status)
	assert.Equal(t, localrun.StatusSucceeded, f.status(t, "q-1"))
}

func TestStartRefusesWhatNoExecutionCanRun(t *testing.T) {
	f := newFixture(t)
	close(f.model.gate)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "first question")))
	f.wait(t, "q-1")
	tests := []struct {
		name, id string
		input    []byte
		kind     globalsearch.Kind
	}{
		{"same id, another request", "q-1", f.input(t, "q-1", "another question"), globalsearch.KindInvalidInput},
		{"not a request", "q-2", []byte(`{"query":""}`), globalsearch.KindInvalidInput},
		{"not JSON", "q-3", []byte(`{`), globalsearch.KindInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.starter.Start(context.Background(), tt.id, tt.input)
			require.Error(t, err)
			assert.Equal(t, tt.kind, globalsearch.KindOf(err))
		})
	}
	assert.Equal(t, "", f.status(t, "q-2"), "a refused start leaves no execution")
}

func TestStopCancelsTheSearchAndNothingMoreIsWritten(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	<-f.model.entered
	require.NoError(t, f.starter.Stop(context.Background(), "q-1", "cancelled by the user"))

	assert.Equal(t, localrun.StatusAborted, f.status(t, "q-1"))
	_, err := f.store.Result(context.Background(), "q-1")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound, "the stopped search saved no result")
	plan, err := f.store.PlanMeta(context.Background(), "q-1")
	require.NoError(t, err)
	answers, err := f.store.MapAnswers(context.Background(), "q-1", plan.RunID)
	require.NoError(t, err)
	assert.Empty(t, answers)
	// Stopping again, or an execution that ended, is no error.
	assert.NoError(t, f.starter.Stop(context.Background(), "q-1", "again"))
}

// TestAStoppedExecutionReportsItsSpend: the calls a stop cut short are
// counted (docs/contract.md#cancel), though none saved an answer.
func TestAStoppedExecutionReportsItsSpend(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	<-f.model.entered
	_, ok := f.starter.Spent("q-1")
	assert.False(t, ok, "nothing to say while it runs")
	require.NoError(t, f.starter.Stop(context.Background(), "q-1", "cancelled by the user"))

	d, ok := f.starter.Spent("q-1")
	require.True(t, ok)
	made := int(f.model.calls.Load())
	require.Positive(t, made)
	assert.Equal(t, made, d.ModelCalls, "every call made, in flight ones included")
	assert.Equal(t, made, d.Map.ModelCalls)
	assert.Positive(t, d.BatchCount)
	assert.Positive(t, d.SummaryCount)
	_, ok = f.starter.Spent("q-none")
	assert.False(t, ok, "no such execution")
}

func TestStopOfAFinishedExecutionKeepsItsStatus(t *testing.T) {
	f := newFixture(t)
	close(f.model.gate)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	f.wait(t, "q-1")
	require.NoError(t, f.starter.Stop(context.Background(), "q-1", "late"))
	assert.Equal(t, localrun.StatusSucceeded, f.status(t, "q-1"))
}

// As StopExecution of a missing execution is to execution.Starter: the
// API's DELETE of a query recorded but never started records its cancel.
func TestStopOfAnUnknownExecutionIsNoError(t *testing.T) {
	f := newFixture(t)
	assert.NoError(t, f.starter.Stop(context.Background(), "q-none", "cancel"))
	status, _, err := f.starter.Execution(context.Background(), "q-none")
	require.NoError(t, err)
	assert.Empty(t, status, "a stop starts nothing")
}

// Wait lets every execution finish, stopping none.
func TestWaitLetsExecutionsFinish(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	<-f.model.entered
	close(f.model.gate)
	f.starter.Wait()
	assert.Equal(t, localrun.StatusSucceeded, f.status(t, "q-1"))
}

func TestStopGivesUpWhenItsContextEnds(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	<-f.model.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := f.starter.Stop(ctx, "q-1", "cancel")
	// The search may have returned first; if not, Stop says it gave up.
	if err != nil {
		assert.ErrorIs(t, err, context.Canceled)
	}
	f.starter.Close()
	assert.Equal(t, localrun.StatusAborted, f.status(t, "q-1"))
}

func TestCloseStopsEveryExecutionAndRefusesNewOnes(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	<-f.model.entered
	f.starter.Close()
	assert.Equal(t, localrun.StatusAborted, f.status(t, "q-1"))
	err := f.starter.Start(context.Background(), "q-2", f.input(t, "q-2", "another"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shutting down")
}

func TestAPanicFailsOnlyItsExecution(t *testing.T) {
	f := newFixture(t)
	f.model.panics = true
	require.NoError(t, f.starter.Start(context.Background(), "q-1", f.input(t, "q-1", "What are the main themes?")))
	f.wait(t, "q-1")
	status, failure, err := f.starter.Execution(context.Background(), "q-1")
	require.NoError(t, err)
	assert.Equal(t, localrun.StatusFailed, status)
	assert.Contains(t, failure, "internal error: model bug")
}

func TestUnknownExecutionHasNoStatus(t *testing.T) {
	f := newFixture(t)
	status, failure, err := f.starter.Execution(context.Background(), "q-none")
	require.NoError(t, err)
	assert.Equal(t, []string{"", ""}, []string{status, failure})
	assert.Nil(t, f.starter.Done("q-none"))
}
