package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
)

// TestStandingQuestionAcrossReingest: a standing question executed twice
// by the state machine, the namespace re-ingested in between with one
// summary changed, one removed and one added, reports on its second run
// what changed (in the runs table and through the API's GET) and calls
// the model only for the two batches that changed and the reduce
// (docs/contract.md#standing-questions). The record is an item of the runs
// table that reduce writes and prepare reads.
func TestStandingQuestionAcrossReingest(t *testing.T) {
	e := newEnv(t)
	tables := store.Tables{MapCache: "graphrag-map-cache"}
	require.NoError(t, store.CreateTables(context.Background(), e.ddb, tables))
	cache, err := store.NewCache(store.NewClient(e.ddb), tables.MapCache)
	require.NoError(t, err)
	e.engine.Cache, e.engine.ModelID = cache, modelID

	namespace := strings.ToLower(uniqueName("ns-standing"))
	e.loadIndex(t, namespace, 5) // c0..c4, batch i holds ci
	execute := func(t *testing.T) (globalsearch.Result, *run) {
		m := e.newStateMachine(t)
		queryID := uniqueName("q-standing")
		rn := newRun()
		rn.model = healthyModel
		e.lambda.register(queryID, rn)
		in := request(queryID, namespace)
		in["standingQuery"] = "nightly-themes"
		arn := e.start(t, m, queryID, in)
		out := e.wait(t, m, arn)
		require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
		res, err := e.runs.Result(context.Background(), queryID)
		require.NoError(t, err)
		require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)
		return res, rn
	}

	first, rn1 := execute(t)
	require.NotNil(t, first.Diagnostics.Changes)
	assert.Empty(t, first.Diagnostics.Changes.PreviousQueryID, "the first run has nothing to compare")
	assert.Equal(t, 5, first.Diagnostics.Changes.BatchesRemapped)
	assert.Equal(t, []string{}, first.Diagnostics.Changes.Added.IDs, "a list, not null, after the plan item's round trip")
	rn1.mu.Lock()
	assert.Equal(t, map[int]int{-1: 1, 0: 1, 1: 1, 2: 1, 3: 1, 4: 1}, rn1.models)
	rn1.mu.Unlock()

	// Re-ingest: c1 rewritten, c4 gone, c7 new (batch 4 now holds c7).
	var next globalsearch.Records
	for _, id := range []string{"c0", "c1", "c2", "c3", "c7"} {
		text := summaryText(id)
		if id == "c1" {
			text = "Rewritten. " + text
		}
		next.Summaries = append(next.Summaries, globalsearch.Summary{ID: id, Title: "Community " + id, Summary: text})
	}
	require.NoError(t, e.index.ReplaceNamespace(context.Background(), namespace, next))

	second, rn2 := execute(t)
	ch := second.Diagnostics.Changes
	require.NotNil(t, ch)
	assert.Equal(t, first.QueryID, ch.PreviousQueryID)
	assert.Equal(t, globalsearch.CommunityChanges{Count: 1, IDs: []string{"c7"}}, ch.Added)
	assert.Equal(t, globalsearch.CommunityChanges{Count: 1, IDs: []string{"c4"}}, ch.Removed)
	assert.Equal(t, globalsearch.CommunityChanges{Count: 1, IDs: []string{"c1"}}, ch.Changed)
	assert.Equal(t, 3, ch.Unchanged)
	assert.Equal(t, 2, ch.BatchesRemapped)
	assert.Equal(t, 3, ch.AnswersReused)
	rn2.mu.Lock()
	assert.Equal(t, map[int]int{-1: 1, 1: 1, 4: 1}, rn2.models, "only the changed batches and the reduce call the model")
	rn2.mu.Unlock()
	assert.Equal(t, 3, second.Diagnostics.ModelCalls)
	t.Logf("second run: %s", ch.Line(true))

	code, body := getQuery(t, e, namespace, second.QueryID)
	require.Equal(t, http.StatusOK, code)
	changes, ok := body["diagnostics"].(map[string]any)["changes"].(map[string]any)
	require.True(t, ok, "GET returns the result with its changes: %v", body)
	assert.Equal(t, first.QueryID, changes["previousQueryId"])
	assert.Equal(t, fmt.Sprint(2), fmt.Sprint(changes["batchesRemapped"]))

	rec, err := e.runs.StandingRecord(context.Background(), namespace, "nightly-themes")
	require.NoError(t, err)
	assert.Equal(t, second.QueryID, rec.QueryID)
	assert.Len(t, rec.Communities, 5)
}
