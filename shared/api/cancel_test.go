package api_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

var cancelledAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// threeBatches is a plan of query id with three batches, two answered.
func threeBatches(t *testing.T, s *memstore.Store, id, ns string) globalsearch.Plan {
	t.Helper()
	ctx := context.Background()
	params, err := s.Request(ctx, id) // a plan stores its request: keep the one recorded
	if errors.Is(err, globalsearch.ErrNotFound) {
		params, err = globalsearch.Params{QueryID: id, Query: "q", Namespace: ns}, nil
	}
	require.NoError(t, err)
	p := globalsearch.Plan{RunID: "run-" + id, Params: params}
	for i := range 3 {
		p.Batches = append(p.Batches, globalsearch.Batch{Index: i, CommunityIDs: []string{"c"}, Content: "x"})
	}
	require.NoError(t, s.SavePlan(ctx, p))
	for _, i := range []int{0, 2} {
		require.NoError(t, s.SaveMapAnswer(ctx, id, p.RunID, globalsearch.MapAnswer{BatchIndex: i, Answer: "a"}))
	}
	return p
}

func TestGetProgress(t *testing.T) {
	cases := []struct {
		name    string
		planned bool
		want    any // the body's progress; nil when absent
	}{
		{name: "running before the plan", want: nil},
		{name: "running with a plan", planned: true,
			want: map[string]any{"map": map[string]any{"done": float64(2), "failed": float64(0), "total": float64(3)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			ctx := context.Background()
			_, _, err := s.CreateRequest(ctx, globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "default"}, "")
			require.NoError(t, err)
			st.inputs["q-1"] = "{}"
			if tc.planned {
				threeBatches(t, s, "q-1", "default")
			}
			resp := call(t, h, request("GET", "/namespaces/default/queries/q-1", "", nil))
			assert.Equal(t, 200, resp.StatusCode, resp.Body)
			b := body(t, resp)
			assert.Equal(t, "running", b["status"])
			assert.Equal(t, "q-1", b["queryId"])
			assert.Equal(t, tc.want, b["progress"])
		})
	}
}

// failingProgress is a memstore whose progress read fails.
type failingProgress struct{ *memstore.Store }

func (failingProgress) MapProgress(context.Context, string) (globalsearch.MapProgress, error) {
	return globalsearch.MapProgress{}, errors.New("table unreachable")
}

func TestGetProgressReadFails(t *testing.T) {
	h, s, st := newHandler()
	h.Runs = failingProgress{s}
	_, _, err := s.CreateRequest(context.Background(), globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "default"}, "")
	require.NoError(t, err)
	st.inputs["q-1"] = "{}"
	resp := call(t, h, request("GET", "/namespaces/default/queries/q-1", "", nil))
	assert.Equal(t, 500, resp.StatusCode, resp.Body)
	assert.Equal(t, "internal", body(t, resp)["error"])
}

func TestCancel(t *testing.T) {
	completed := globalsearch.Result{QueryID: "q-1", Namespace: "a", Status: globalsearch.StatusCompleted, Answer: "42"}
	cases := []struct {
		name string
		// setup leaves query q-1 of namespace a in some state.
		setup      func(t *testing.T, s *memstore.Store, st *fakeStarter)
		ns         string // the path's; "a" when empty
		wantStatus int
		wantError  string              // the error code of a refusal
		wantStop   bool                // a Stop succeeded
		after      globalsearch.Status // the stored result's status after it; "" for none
	}{
		{name: "running before the plan", setup: started, wantStatus: 200, wantStop: true, after: globalsearch.StatusCancelled},
		{name: "running with a plan", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			threeBatches(t, s, "q-1", "a")
		}, wantStatus: 200, wantStop: true, after: globalsearch.StatusCancelled},
		{name: "recorded, its execution never started", setup: func(t *testing.T, s *memstore.Store, _ *fakeStarter) {
			_, _, err := s.CreateRequest(context.Background(), globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, "")
			require.NoError(t, err)
		}, wantStatus: 200, wantStop: true, after: globalsearch.StatusCancelled},
		{name: "already cancelled: the same answer, nothing stopped", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			require.NoError(t, s.CancelResult(context.Background(), globalsearch.CancelledResult(globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, cancelledAt), "q-1"))
		}, wantStatus: 200, after: globalsearch.StatusCancelled},
		{name: "finished", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			require.NoError(t, s.SaveResult(context.Background(), completed, ""))
		}, wantStatus: 409, wantError: "conflict", after: globalsearch.StatusCompleted},
		{name: "its execution ended without a result", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			st.status = "FAILED"
		}, wantStatus: 409, wantError: "conflict"},
		{name: "finished while it was being stopped", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			st.stop = func(string) error { return s.SaveResult(context.Background(), completed, "") }
		}, wantStatus: 409, wantError: "conflict", wantStop: true, after: globalsearch.StatusCompleted},
		{name: "run by an execution the API did not start", setup: func(t *testing.T, s *memstore.Store, _ *fakeStarter) {
			_, _, err := s.CreateRequest(context.Background(), globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, "nightly-2026-01-02")
			require.NoError(t, err)
		}, wantStatus: 409, wantError: "conflict", wantStop: true},
		{name: "stopped already, not yet recorded", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			st.status = "ABORTED"
		}, wantStatus: 200, after: globalsearch.StatusCancelled},
		{name: "unknown id", setup: func(*testing.T, *memstore.Store, *fakeStarter) {}, wantStatus: 404, wantError: "not_found"},
		{name: "another namespace's", setup: started, ns: "b", wantStatus: 404, wantError: "not_found"},
		{name: "another namespace's result", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			require.NoError(t, s.SaveResult(context.Background(), completed, ""))
		}, ns: "b", wantStatus: 404, wantError: "not_found", after: globalsearch.StatusCompleted},
		{name: "the stop fails: nothing written", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			st.stop = func(string) error { return errors.New("states unreachable") }
		}, wantStatus: 500, wantError: "internal"},
		{name: "the stop is throttled: nothing written", setup: func(t *testing.T, s *memstore.Store, st *fakeStarter) {
			started(t, s, st)
			st.stop = func(string) error { return globalsearch.Errorf(globalsearch.KindThrottled, "slow down") }
		}, wantStatus: 503, wantError: "throttled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			h.Now = func() time.Time { return cancelledAt }
			tc.setup(t, s, st)
			stopsBefore := len(st.stopped)
			ns := tc.ns
			if ns == "" {
				ns = "a"
			}
			req := request("DELETE", "/namespaces/"+ns+"/queries/q-1", "", nil)
			resp := call(t, h, req)
			assert.Equal(t, tc.wantStatus, resp.StatusCode, resp.Body)
			b := body(t, resp)
			stopped := len(st.stopped) > stopsBefore
			if tc.wantStatus == 200 {
				want := globalsearch.CancelledResult(globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, cancelledAt)
				if _, err := s.PlanMeta(context.Background(), "q-1"); err == nil {
					want.Diagnostics.BatchCount = 3 // the plan's, kept beside the spend (TestCancelReportsSpend)
				}
				assert.Equal(t, "cancelled", b["status"])
				assert.Equal(t, "q-1", b["queryId"])
				assert.Equal(t, "a", b["namespace"])
				got, err := s.Result(context.Background(), "q-1")
				require.NoError(t, err)
				assert.Equal(t, want, got)
			} else {
				assert.Equal(t, tc.wantError, b["error"])
			}
			assert.Equal(t, tc.wantStop, stopped, "whether the execution was stopped")
			if tc.wantStop && stopped {
				assert.Equal(t, "q-1: cancelled through the HTTP API: DELETE /namespaces/a/queries/q-1", st.stopped[len(st.stopped)-1])
			}
			got, err := s.Result(context.Background(), "q-1")
			if tc.after == "" {
				assert.ErrorIs(t, err, globalsearch.ErrNotFound, "nothing written")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.after, got.Status)
		})
	}
}

// started records query q-1 of namespace a, as POST does, with a running
// execution.
func started(t *testing.T, s *memstore.Store, st *fakeStarter) {
	t.Helper()
	_, _, err := s.CreateRequest(context.Background(), globalsearch.Params{QueryID: "q-1", Query: "q", Namespace: "a"}, "")
	require.NoError(t, err)
	st.inputs["q-1"] = "{}"
}

// TestCancelledStaysCancelled: after a DELETE, a late reduce of the run
// cannot save its result, GET reads cancelled, and a repeated POST of the
// same id starts nothing.
func TestCancelledStaysCancelled(t *testing.T) {
	h, s, st := newHandler()
	ctx := context.Background()
	resp := call(t, h, request("POST", "/namespaces/a/queries", `{"query":"q","queryId":"q-1"}`, nil))
	require.Equal(t, 202, resp.StatusCode, resp.Body)
	plan := threeBatches(t, s, "q-1", "a")
	resp = call(t, h, request("DELETE", "/namespaces/a/queries/q-1", "", nil))
	require.Equal(t, 200, resp.StatusCode, resp.Body)

	late := globalsearch.Result{QueryID: "q-1", Namespace: "a", Status: globalsearch.StatusCompleted, Answer: "late"}
	assert.ErrorIs(t, s.SaveResult(ctx, late, plan.RunID), globalsearch.ErrNotFound, "a late reduce is refused")
	got := body(t, call(t, h, request("GET", "/namespaces/a/queries/q-1", "", nil)))
	assert.Equal(t, "cancelled", got["status"])
	assert.Equal(t, "the run was cancelled before it saved a result", got["error"])

	starts := st.calls
	again := call(t, h, request("POST", "/namespaces/a/queries", `{"query":"q","queryId":"q-1"}`, nil))
	assert.Equal(t, 200, again.StatusCode, again.Body)
	assert.Equal(t, "cancelled", body(t, again)["status"])
	assert.Equal(t, starts, st.calls, "nothing started again")
}

// failingCancel is a memstore whose cancel record fails.
type failingCancel struct{ *memstore.Store }

func (failingCancel) CancelResult(context.Context, globalsearch.Result, string) error {
	return errors.New("table unreachable")
}

// TestCancelRecordFailsThenRetried: the stop succeeded but the record
// failed (500, nothing written); the retried DELETE finds the execution
// ABORTED and records the cancel without stopping again.
func TestCancelRecordFailsThenRetried(t *testing.T) {
	h, s, st := newHandler()
	started(t, s, st)
	h.Runs = failingCancel{s}
	resp := call(t, h, request("DELETE", "/namespaces/a/queries/q-1", "", nil))
	assert.Equal(t, 500, resp.StatusCode, resp.Body)
	assert.Equal(t, "internal", body(t, resp)["error"])
	_, err := s.Result(context.Background(), "q-1")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound, "nothing written")
	require.Len(t, st.stopped, 1, "the execution was stopped")

	h.Runs = s
	resp = call(t, h, request("DELETE", "/namespaces/a/queries/q-1", "", nil))
	assert.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, "cancelled", body(t, resp)["status"])
	assert.Len(t, st.stopped, 1, "not stopped again")
}

var (
	_ api.Runs = failingProgress{}
	_ api.Runs = failingCancel{}
)
