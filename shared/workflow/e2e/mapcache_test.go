package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

// TestMapCacheSecondExecution: a second execution over an unchanged index
// (a schedule's next run: a new query id, the same request) invokes every
// map task but makes no map model call, and gives the same answer
// (docs/contract.md#map-cache). The map cache is its own table, as template.yaml deploys it.
func TestMapCacheSecondExecution(t *testing.T) {
	e := newEnv(t)
	tables := store.Tables{MapCache: "graphrag-map-cache"}
	require.NoError(t, store.CreateTables(context.Background(), e.ddb, tables))
	cache, err := store.NewCache(store.NewClient(e.ddb), tables.MapCache)
	require.NoError(t, err)
	e.engine.Cache, e.engine.ModelID = cache, modelID

	const batches = 3
	namespace := strings.ToLower(uniqueName("ns-cache"))
	e.loadIndex(t, namespace, batches)
	execute := func(t *testing.T) (globalsearch.Result, *run, time.Duration) {
		// A state machine per execution: moto runs one execution per
		// region backend (see regions).
		m := e.newStateMachine(t)
		start := time.Now()
		queryID := uniqueName("q-cache")
		rn := newRun()
		rn.model = healthyModel
		e.lambda.register(queryID, rn)
		arn := e.start(t, m, queryID, request(queryID, namespace))
		out := e.wait(t, m, arn)
		require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
		res, err := e.runs.Result(context.Background(), queryID)
		require.NoError(t, err)
		require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
		return res, rn, time.Since(start)
	}

	first, rn1, wall1 := execute(t)
	second, rn2, wall2 := execute(t)
	t.Logf("first execution: model calls %d, wall %s; second: model calls %d, cache hits %d, wall %s",
		first.Diagnostics.ModelCalls, wall1.Round(time.Millisecond), second.Diagnostics.ModelCalls,
		second.Diagnostics.Map.CacheHits, wall2.Round(time.Millisecond))

	rn1.mu.Lock()
	assert.Equal(t, map[int]int{-1: 1, 0: 1, 1: 1, 2: 1}, rn1.models, "first: every batch calls the model")
	rn1.mu.Unlock()
	rn2.mu.Lock()
	assert.Equal(t, map[int]int{-1: 1}, rn2.models, "second: only the reduce call reaches the model")
	rn2.mu.Unlock()
	assert.Equal(t, batches, rn2.count("map"), "every map task still runs")
	assert.Equal(t, 0, second.Diagnostics.Map.ModelCalls)
	assert.Equal(t, batches, second.Diagnostics.Map.CacheHits)
	assert.Equal(t, 1, second.Diagnostics.ModelCalls, "modelCalls counts real calls only")
	assert.Equal(t, first.Answer, second.Answer)
	assert.Equal(t, first.SelectedMapAnswers, second.SelectedMapAnswers)

	// The reduce function's timeline, from the plan and answer items
	// (docs/contract.md#timeline): the first execution's map calls make its
	// map stage; the second's cached answers made no call, so it has none.
	for _, res := range []globalsearch.Result{first, second} {
		tl := res.Diagnostics.Timeline
		assert.Equal(t, res.Diagnostics.StartedAt, tl.StartedAt)
		assert.NotNil(t, tl.PrepareSeconds, "prepare of %s", res.QueryID)
		assert.NotNil(t, tl.ReduceSeconds, "reduce of %s", res.QueryID)
	}
	assert.NotNil(t, first.Diagnostics.Timeline.FirstMapCallSeconds)
	assert.NotNil(t, first.Diagnostics.Timeline.MapSeconds)
	assert.Nil(t, second.Diagnostics.Timeline.FirstMapCallSeconds, "a cached answer is no map call")
	assert.Nil(t, second.Diagnostics.Timeline.MapSeconds)
}
