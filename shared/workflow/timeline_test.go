package workflow_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// stepClock is the clock of every function in the timeline test: it moves
// only when the test or a fake advances it.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// readingIndex is an index whose Open takes d on the clock.
type readingIndex struct {
	globalsearch.Index
	clock *stepClock
	d     time.Duration
}

func (i readingIndex) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	i.clock.advance(i.d)
	return i.Index.Open(ctx, namespace)
}

// TestTimelineOnAWS: the prepare, map and reduce functions, each with its
// own engine over the runs table (minidyn), record their instants in the
// plan and answer items, and the reduce function computes the timeline
// from them (docs/contract.md#timeline). Prepare reads for 0.5 s, its save
// and the Map state's start take 3 s, each map call 2 s with a 1 s gap
// before the last, the Reduce state's start 0.5 s and the reduce call 1.5 s.
func TestTimelineOnAWS(t *testing.T) {
	tests := []struct {
		name       string
		reduceFail bool // the Reduce state's Catch records the failure
		wantStatus globalsearch.Status
		want       globalsearch.Timeline // StartedAt is the clock's start
	}{
		{name: "reduced", wantStatus: globalsearch.StatusCompleted,
			want: globalsearch.Timeline{PrepareSeconds: new(0.5), FirstMapCallSeconds: new(3.5), MapSeconds: new(7.0), ReduceSeconds: new(1.5)}},
		{name: "reduce failure recorded by the Catch: no reduce duration", reduceFail: true, wantStatus: globalsearch.StatusFailed,
			want: globalsearch.Timeline{PrepareSeconds: new(0.5), FirstMapCallSeconds: new(3.5), MapSeconds: new(7.0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clock := &stepClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
			client := testenv.Minidyn(t)
			tables := store.Tables{Index: "index", Runs: "runs"}
			require.NoError(t, store.CreateTables(ctx, client, tables))
			c := store.NewClient(client)
			idx, err := store.NewIndex(c, tables.Index)
			require.NoError(t, err)
			text := strings.Repeat("Trade and growth shaped the decade. ", 55)
			require.NoError(t, idx.ReplaceNamespace(ctx, "ns", globalsearch.Records{Summaries: []globalsearch.Summary{
				{ID: "a", Summary: text}, {ID: "b", Summary: text}, {ID: "c", Summary: text},
			}}))
			runs, err := store.NewRuns(c, tables.Runs)
			require.NoError(t, err)
			model := &fakeModel{complete: func(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
				if req.Stage == globalsearch.StageReduce {
					clock.advance(1500 * time.Millisecond)
					if tc.reduceFail {
						return globalsearch.ModelResponse{}, errors.New("model unavailable")
					}
					return globalsearch.ModelResponse{Text: `{"answer":"final answer"}`}, nil
				}
				clock.advance(2 * time.Second)
				return globalsearch.ModelResponse{Text: `{"answer":"partial answer","usefulness":50}`}, nil
			}}
			d := globalsearch.SpecDefaults
			d.Namespace, d.MapTokenBudget, d.MapOutputReserve = "ns", 1200, 0
			function := func(e globalsearch.Engine) *workflow.Handlers {
				e.Runs, e.Now, e.MaxBatches = runs, clock.Now, workflow.InlineMaxBatches
				return &workflow.Handlers{Engine: &e, Defaults: d}
			}
			prepare := function(globalsearch.Engine{Index: readingIndex{Index: idx, clock: clock, d: 500 * time.Millisecond}})
			mapper, reducer := function(globalsearch.Engine{Model: model}), function(globalsearch.Engine{Model: model})

			started := clock.Now()
			out, err := prepare.Prepare(ctx, workflow.PrepareInput{Request: []byte(`{"query":"what changed?","queryId":"q-time","shuffle":false}`)})
			require.NoError(t, err)
			require.Equal(t, 3, out.BatchCount)
			clock.advance(3 * time.Second)
			var results []workflow.MapResult
			for i := range out.BatchCount {
				if i == 2 {
					clock.advance(time.Second)
				}
				a, err := mapper.Map(ctx, workflow.MapInput{QueryID: out.QueryID, RunID: out.RunID, BatchIndex: i, Attempt: 1})
				require.NoError(t, err)
				results = append(results, workflow.MapResult{BatchIndex: a.BatchIndex, Usefulness: a.Usefulness})
			}
			clock.advance(500 * time.Millisecond)
			in := workflow.ReduceInput{QueryID: out.QueryID, RunID: out.RunID, MapResults: results}
			if tc.reduceFail {
				_, err := reducer.Reduce(ctx, in)
				require.Error(t, err, "the attempt fails; the state machine's Catch records it")
				in.Failure = &workflow.TaskFailure{Error: "ModelError", Cause: `{"errorMessage":"model unavailable","errorType":"ModelError"}`}
			}
			got, err := reducer.Reduce(ctx, in)
			require.NoError(t, err)
			require.Equal(t, tc.wantStatus, got.Status)

			res, err := runs.Result(ctx, out.QueryID)
			require.NoError(t, err)
			tc.want.StartedAt = started
			assert.Equal(t, tc.want, res.Diagnostics.Timeline, "the result as the runs table holds it")
		})
	}
}
