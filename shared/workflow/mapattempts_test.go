package workflow_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// tokenScript is a scripted model whose map calls report tokens that
// depend only on the batch's community and the call's number for it, so
// that two runs of the same script report the same whatever their order.
// script holds, by community, the texts of its first calls; past them a
// map call answers. spent adds up what the map calls reported.
type tokenScript struct {
	script map[string][]string

	mu    sync.Mutex
	made  map[string]int
	spent globalsearch.StageUsage
}

func (m *tokenScript) Complete(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if req.Stage == globalsearch.StageReduce {
		return globalsearch.ModelResponse{Text: `{"answer":"final answer"}`, InputTokens: 700, OutputTokens: 70}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.made == nil {
		m.made = map[string]int{}
	}
	id := req.Parts[0].CommunityID
	n := m.made[id]
	text := `{"answer":"partial answer","usefulness":50}`
	if n < len(m.script[id]) {
		text = m.script[id][n]
	}
	m.made[id]++
	resp := globalsearch.ModelResponse{Text: text, InputTokens: 1000*int(id[0]-'a'+1) + 10*n, OutputTokens: 5 + n,
		CacheReadInputTokens: 400 + n, CacheWriteInputTokens: 1}
	m.spent.ModelCalls++
	m.spent.InputTokens += resp.InputTokens
	m.spent.OutputTokens += resp.OutputTokens
	m.spent.CacheReadInputTokens += resp.CacheReadInputTokens
	m.spent.CacheWriteInputTokens += resp.CacheWriteInputTokens
	return resp, nil
}

// mapFigures are the figures of a map stage the tests compare.
func mapFigures(d globalsearch.Diagnostics) globalsearch.StageUsage {
	return globalsearch.StageUsage{ModelCalls: d.Map.ModelCalls, InputTokens: d.Map.InputTokens, OutputTokens: d.Map.OutputTokens,
		CacheReadInputTokens: d.Map.CacheReadInputTokens, CacheWriteInputTokens: d.Map.CacheWriteInputTokens}
}

// TestFailedMapAttemptsOnAWS: the map function's attempts (the second one
// the state machine's Retry) and then the reduce function, each its own
// engine over the runs table (minidyn), count in the result every map call
// and token the model reported, the attempts whose output broke the rules
// included, as the in-process search of the same script does; a run
// stopped before its reduce reads the same map figures from the table
// (docs/contract.md#failed-attempts).
func TestFailedMapAttemptsOnAWS(t *testing.T) {
	script := map[string][]string{
		"a": {"not json"},                       // answered at its second attempt
		"b": {"not json", `{"usefulness":"x"}`}, // fails both
	}
	ctx := context.Background()
	client := testenv.Minidyn(t)
	tables := store.Tables{Index: "index", Runs: "runs"}
	require.NoError(t, store.CreateTables(ctx, client, tables))
	c := store.NewClient(client)
	idx, err := store.NewIndex(c, tables.Index)
	require.NoError(t, err)
	text := strings.Repeat("Trade and growth shaped the decade. ", 55)
	records := globalsearch.Records{Summaries: []globalsearch.Summary{{ID: "a", Summary: text}, {ID: "b", Summary: text}, {ID: "c", Summary: text}}}
	require.NoError(t, idx.ReplaceNamespace(ctx, "ns", records))
	runs, err := store.NewRuns(c, tables.Runs)
	require.NoError(t, err)
	prices := &globalsearch.Prices{Map: globalsearch.Price{In: 0.003, Out: 0.015}, Reduce: globalsearch.Price{In: 0.001, Out: 0.005}}
	d := globalsearch.SpecDefaults
	d.Namespace, d.MapTokenBudget, d.MapOutputReserve = "ns", 1200, 0
	model := &tokenScript{script: script}
	function := func(e globalsearch.Engine) *workflow.Handlers {
		e.Runs, e.Model, e.Prices, e.MaxBatches = runs, model, prices, workflow.InlineMaxBatches
		return &workflow.Handlers{Engine: &e, Defaults: d}
	}
	prepare, mapper, reducer := function(globalsearch.Engine{Index: idx}), function(globalsearch.Engine{}), function(globalsearch.Engine{})
	request := `{"query":"what changed?","queryId":"q-attempts","shuffle":false}`

	out, err := prepare.Prepare(ctx, workflow.PrepareInput{Request: []byte(request)})
	require.NoError(t, err)
	require.Equal(t, 3, out.BatchCount)
	var results []workflow.MapResult
	for i := range out.BatchCount {
		var err error
		for attempt := 1; attempt <= workflow.MapAttempts; attempt++ {
			var a workflow.MapOutput
			if a, err = mapper.Map(ctx, workflow.MapInput{QueryID: out.QueryID, RunID: out.RunID, BatchIndex: i, Attempt: attempt}); err == nil {
				results = append(results, workflow.MapResult{BatchIndex: a.BatchIndex, Usefulness: a.Usefulness})
				break
			}
		}
		if err != nil {
			results = append(results, workflow.MapResult{BatchIndex: i, Failed: true, Error: workflow.ErrorType(err)})
		}
	}
	spent := model.spent
	require.Equal(t, 5, spent.ModelCalls, "a: 2, b: 2, c: 1")

	stopped, err := globalsearch.RunSpend(ctx, runs, prices, out.QueryID, out.RunID)
	require.NoError(t, err)
	assert.Equal(t, spent, mapFigures(stopped), "a run stopped before its reduce: the map stage as the table holds it")

	got, err := reducer.Reduce(ctx, workflow.ReduceInput{QueryID: out.QueryID, RunID: out.RunID, MapResults: results})
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusPartial, got.Status)
	onAWS, err := runs.Result(ctx, out.QueryID)
	require.NoError(t, err)
	assert.Equal(t, spent, mapFigures(onAWS.Diagnostics), "the result counts every map call and token")
	require.NotNil(t, onAWS.Diagnostics.Cost)

	local := memstore.New()
	require.NoError(t, local.ReplaceNamespace(ctx, "ns", records))
	inProcess := &tokenScript{script: script}
	p, err := globalsearch.ParseRequest([]byte(request), d)
	require.NoError(t, err)
	e := &globalsearch.Engine{Index: local, Runs: local, Model: inProcess, Prices: prices}
	res, err := e.Search(ctx, p)
	require.NoError(t, err)
	require.Equal(t, globalsearch.StatusPartial, res.Status)
	assert.Equal(t, inProcess.spent, spent, "the same script, the same calls")
	assert.Equal(t, mapFigures(res.Diagnostics), mapFigures(onAWS.Diagnostics), "in one process as on AWS")
	assert.Equal(t, res.Diagnostics.ModelCalls, onAWS.Diagnostics.ModelCalls)
	assert.Equal(t, res.Diagnostics.InputTokens, onAWS.Diagnostics.InputTokens)
	assert.Equal(t, res.Diagnostics.OutputTokens, onAWS.Diagnostics.OutputTokens)
	require.NotNil(t, res.Diagnostics.Cost)
	assert.InDelta(t, res.Diagnostics.Cost.Total(), onAWS.Diagnostics.Cost.Total(), 1e-12)
	t.Logf("model: %d map calls, %d in, %d out; result on AWS: %d calls, %d in, %d out, $%.6f; stopped run: %d calls, %d in",
		spent.ModelCalls, spent.InputTokens, spent.OutputTokens, onAWS.Diagnostics.Map.ModelCalls, onAWS.Diagnostics.Map.InputTokens,
		onAWS.Diagnostics.Map.OutputTokens, onAWS.Diagnostics.Cost.Map, stopped.Map.ModelCalls, stopped.Map.InputTokens)
}
