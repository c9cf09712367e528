package api_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// spendingStarter is a starter that ran its execution in process and knows
// what it spent (localrun's Spent).
type spendingStarter struct {
	*fakeStarter
	spent globalsearch.Diagnostics
}

func (s spendingStarter) Spent(string) (globalsearch.Diagnostics, bool) { return s.spent, true }

// brokenAnswers is a runs store whose map answers cannot be read.
type brokenAnswers struct{ *memstore.Store }

func (brokenAnswers) MapAnswers(context.Context, string, string) ([]globalsearch.MapAnswer, error) {
	return nil, errors.New("table unreachable")
}

// TestCancelReportsSpend: a cancelled result says what the stopped run
// spent (docs/contract.md#cancel): from the in-process execution when the
// starter knows it, else from the runs store (a deployment), and a store
// that cannot say still lets the cancel be recorded.
func TestCancelReportsSpend(t *testing.T) {
	answers := []globalsearch.MapAnswer{
		{BatchIndex: 0, Answer: "a", Attempts: 1, InputTokens: 100, OutputTokens: 10},
		{BatchIndex: 2, Answer: "b", Attempts: 2, InputTokens: 200, OutputTokens: 20},
	}
	inProcess := globalsearch.Diagnostics{BatchCount: 3, ModelCalls: 8, InputTokens: 40, OutputTokens: 4,
		Map: globalsearch.StageUsage{ModelCalls: 8, InputTokens: 40, OutputTokens: 4}}
	cases := []struct {
		name                string
		starter             func(*fakeStarter) api.Starter
		runs                func(*memstore.Store) api.Runs
		wantCalls, wantIn   int
		wantOut, wantBatchs int
	}{
		{name: "from the store", wantCalls: 3, wantIn: 300, wantOut: 30, wantBatchs: 3},
		{name: "from the in-process execution", starter: func(f *fakeStarter) api.Starter { return spendingStarter{f, inProcess} },
			wantCalls: 8, wantIn: 40, wantOut: 4, wantBatchs: 3},
		{name: "the store cannot say", runs: func(s *memstore.Store) api.Runs { return brokenAnswers{s} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, s, st := newHandler()
			if tc.starter != nil {
				h.Starter = tc.starter(st)
			}
			if tc.runs != nil {
				h.Runs = tc.runs(s)
			}
			started(t, s, st)
			p := threeBatches(t, s, "q-1", "a")
			for _, a := range answers {
				require.NoError(t, s.SaveMapAnswer(context.Background(), "q-1", p.RunID, a))
			}
			resp := call(t, h, request("DELETE", "/namespaces/a/queries/q-1", "", nil))
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			got, err := s.Result(context.Background(), "q-1")
			require.NoError(t, err)
			assert.Equal(t, globalsearch.StatusCancelled, got.Status)
			d := got.Diagnostics
			assert.Equal(t, tc.wantCalls, d.ModelCalls)
			assert.Equal(t, tc.wantIn, d.InputTokens)
			assert.Equal(t, tc.wantOut, d.OutputTokens)
			assert.Equal(t, tc.wantBatchs, d.BatchCount)
			assert.Equal(t, tc.wantCalls, d.Map.ModelCalls, "the spend is by stage")
		})
	}
}
