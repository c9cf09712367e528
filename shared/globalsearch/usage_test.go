package globalsearch_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// usageNamespace is three leaf summaries, one of them Chinese, so batches
// differ in their mix of ASCII and non-ASCII code points.
func usageNamespace() gs.Records {
	r := leafNamespace(3)
	r.Summaries[2].Summary = strings.Repeat("渔业产量上升，价格下降。港口扩建。", 8)
	return r
}

// reportingModel answers like answerEverything and reports, for each map
// call, the estimate of its prompt plus extra[community] of its first part,
// and reduceIn for the reduce call; fail names communities whose map calls
// fail and failReduce fails every reduce call.
func reportingModel(extra map[string]int, fail map[string]bool, reduceIn int, failReduce bool) *fakeModel {
	return &fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		resp, err := answerEverything(req, call)
		if req.Stage == gs.StageReduce {
			if failReduce {
				return gs.ModelResponse{}, errors.New("reduce model down")
			}
			resp.InputTokens = reduceIn
			return resp, err
		}
		id := req.Parts[0].CommunityID
		if fail[id] {
			return gs.ModelResponse{}, errors.New("map model down")
		}
		resp.InputTokens = max(0, tokens.Estimate(req.Prompt)+extra[id])
		return resp, err
	}}
}

func TestResultUsage(t *testing.T) {
	const query = "What grew?"
	tests := []struct {
		name       string
		extra      map[string]int
		fail       map[string]bool
		reduceIn   int
		failReduce bool
		// cached runs the search twice with a map cache, and checks the second.
		cached     bool
		wantStatus gs.Status
		// wantReported are the batches (by first community) the model
		// reported on, so the map stage compares exactly those.
		wantReported []string
		wantWorst    string
		wantReduce   bool
	}{
		{name: "every batch answered, the worst is the one the model counted most",
			extra: map[string]int{"c1": 40, "c2": 10}, reduceIn: 500, wantStatus: gs.StatusCompleted,
			wantReported: []string{"c0", "c1", "c2"}, wantWorst: "c1", wantReduce: true},
		{name: "equal ratios: the first batch is the worst",
			reduceIn: 500, wantStatus: gs.StatusCompleted,
			wantReported: []string{"c0", "c1", "c2"}, wantWorst: "c0", wantReduce: true},
		{name: "a failed batch has no report and is left out",
			extra: map[string]int{"c0": 80, "c2": 5}, fail: map[string]bool{"c0": true}, reduceIn: 500, wantStatus: gs.StatusPartial,
			wantReported: []string{"c1", "c2"}, wantWorst: "c2", wantReduce: true},
		{name: "cached answers cost no call and are left out",
			reduceIn: 500, cached: true, wantStatus: gs.StatusCompleted, wantReduce: true},
		{name: "a model that reports no input tokens compares nothing",
			extra: map[string]int{"c0": -1000, "c1": -1000, "c2": -1000}, wantStatus: gs.StatusCompleted},
		{name: "a failed reduce compares the map stage only",
			extra: map[string]int{"c2": 30}, failReduce: true, wantStatus: gs.StatusFailed,
			wantReported: []string{"c0", "c1", "c2"}, wantWorst: "c2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := reportingModel(tc.extra, tc.fail, tc.reduceIn, tc.failReduce)
			e, _ := newEngine(t, usageNamespace(), model)
			e.ModelID = "model-a"
			p := oneBatchPerSummary(t, query, nil)
			if tc.cached {
				e.Cache = dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil)
				_, err := e.Search(t.Context(), p)
				require.NoError(t, err)
			}
			plan, err := e.Plan(t.Context(), p)
			require.NoError(t, err)
			require.Len(t, plan.Batches, 3)

			res, _ := e.Search(t.Context(), p)
			require.Equal(t, tc.wantStatus, res.Status, res.Error)
			d := res.Diagnostics
			require.Len(t, d.Batches, len(plan.Batches))

			assert.Equal(t, "model-a", d.Usage.ModelID)
			sys := tokens.Of(gs.SystemPrompt)
			assert.Equal(t, gs.CodePoints{ASCII: sys.ASCII, NonASCII: sys.NonASCII}, d.Usage.SystemPrompt)

			var want gs.StageEstimate
			worst := -1
			for i, b := range plan.Batches {
				sent := tokens.Of(gs.DefaultPrompts().Map.Render(query, b.Content))
				got := d.Batches[i]
				assert.Equal(t, sent.ASCII, got.ASCIICodePoints, "batch %d", i)
				assert.Equal(t, sent.NonASCII, got.NonASCIICodePoints, "batch %d", i)
				assert.Equal(t, sent.Tokens(), got.EstimatedTokens, "batch %d: the code points are those the estimate counts", i)
				id := b.CommunityIDs[0]
				if !slices.Contains(tc.wantReported, id) {
					assert.Zero(t, got.ReportedInputTokens, "batch %d has no report", i)
					continue
				}
				reported := b.EstimatedTokens + tc.extra[id]
				assert.Equal(t, reported, got.ReportedInputTokens, "batch %d", i)
				want.Calls++
				want.EstimatedInputTokens += b.EstimatedTokens
				want.ReportedInputTokens += reported
				if id == tc.wantWorst {
					worst = i
					want.WorstBatchRatio = float64(reported) / float64(b.EstimatedTokens)
				}
			}
			m := d.Usage.Map
			assert.Equal(t, want.Calls, m.Calls)
			assert.Equal(t, want.EstimatedInputTokens, m.EstimatedInputTokens)
			assert.Equal(t, want.ReportedInputTokens, m.ReportedInputTokens)
			if want.Calls == 0 {
				assert.Zero(t, m.Ratio)
				assert.Nil(t, m.WorstBatchIndex)
			} else {
				assert.InDelta(t, float64(want.ReportedInputTokens)/float64(want.EstimatedInputTokens), m.Ratio, 1e-4)
				require.NotNil(t, m.WorstBatchIndex)
				assert.Equal(t, worst, *m.WorstBatchIndex)
				assert.InDelta(t, want.WorstBatchRatio, m.WorstBatchRatio, 1e-4)
			}

			r := d.Usage.Reduce
			if !tc.wantReduce {
				assert.Equal(t, gs.StageEstimate{}, r)
				return
			}
			assert.Equal(t, gs.StageEstimate{Calls: 1, EstimatedInputTokens: d.ReducePromptTokens, ReportedInputTokens: tc.reduceIn,
				Ratio: r.Ratio}, r)
			assert.InDelta(t, float64(tc.reduceIn)/float64(d.ReducePromptTokens), r.Ratio, 1e-4)
		})
	}
}
