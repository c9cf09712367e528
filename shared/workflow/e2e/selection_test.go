package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// selectionScores are the scores the fake model rates each community with:
// roots a, b, c; the children of a and c are rated in round two.
var selectionScores = map[string]int{"a": 4, "a1": 5, "a2": 0, "b": 1, "b1": 5, "c": 3, "c1": 3, "c2": 1}

// loadForest writes the roots a, b, c and their children into namespace.
func (e *env) loadForest(t *testing.T, namespace string) {
	t.Helper()
	var r globalsearch.Records
	for _, id := range []string{"a", "a1", "a2", "b", "b1", "c", "c1", "c2"} {
		s := globalsearch.Summary{ID: id, Title: "Community " + id, Summary: "Community " + id + " reports on trade along the river."}
		if len(id) == 2 {
			s.Level, s.ParentCommunityID = 1, id[:1]
		}
		r.Summaries = append(r.Summaries, s)
	}
	require.NoError(t, e.index.ReplaceNamespace(context.Background(), namespace, r))
}

var ratedID = regexp.MustCompile(`Community ID: ([a-z0-9]+)`)

// ratingModel rates every community of a rating call from selectionScores
// and fails, every attempt, the rating call whose communities include
// failing; map and reduce calls are answered as healthyModel answers them.
func ratingModel(failing string) func(call modelCall) modeltest.ConverseReply {
	return func(call modelCall) modeltest.ConverseReply {
		if call.Function != "map" || !strings.Contains(call.Body, "Rate every community") {
			return healthyModel(call)
		}
		var parts []string
		for _, m := range ratedID.FindAllStringSubmatch(call.Body, -1) {
			if m[1] == failing {
				return modelError()
			}
			parts = append(parts, fmt.Sprintf(`{"id":%q,"score":%d}`, m[1], selectionScores[m[1]]))
		}
		return modelText(`{"ratings":[` + strings.Join(parts, ",") + `]}`)
	}
}

// TestDynamicSelection: a request with selection "dynamic" runs on the
// state machine (docs/contract.md#dynamic-selection): RateCommunities rates
// the roots, SelectNext the children of the relevant ones, and the map
// runs over what was selected; the result reports the selection. A rating
// batch that fails both attempts leaves its communities not rated, and the
// run still completes.
func TestDynamicSelection(t *testing.T) {
	e := newEnv(t)
	workflow.StepEngine(e.engine)
	namespace := strings.ToLower(uniqueName("ns-select"))
	e.loadForest(t, namespace)
	tests := []struct {
		name         string
		failing      string
		wantSelected []string
		wantCalls    int
		wantFailed   int
		wantNotRated int
	}{
		// Round 1 rates a, b, c (a and c relevant); round 2 a1, a2, c1, c2.
		{"every rating answered", "", []string{"a1", "c1"}, 2, 0, 0},
		{"a rating batch fails both attempts", "a1", []string{"a", "c"}, 3, 1, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := e.newStateMachine(t)
			queryID := uniqueName("q-select")
			rn := newRun()
			rn.model = ratingModel(tc.failing)
			e.lambda.register(queryID, rn)
			in := request(queryID, namespace)
			delete(in, "mapTokenBudget")
			in["selection"] = "dynamic"
			arn := e.start(t, m, queryID, in)
			out := e.wait(t, m, arn)
			require.Equal(t, sfntypes.ExecutionStatusSucceeded, out.Status, e.history(m, arn))
			res, err := e.runs.Result(context.Background(), queryID)
			require.NoError(t, err)
			require.Equal(t, globalsearch.StatusCompleted, res.Status, res.Error)

			sel := res.Diagnostics.Selection
			assert.Equal(t, 2, sel.Rounds)
			assert.Equal(t, 7-tc.wantNotRated, sel.Rated)
			assert.Equal(t, tc.wantCalls, sel.RatingCalls)
			assert.Equal(t, tc.wantFailed, sel.FailedRatingBatches)
			assert.Equal(t, tc.wantNotRated, sel.NotRated)
			assert.Equal(t, len(tc.wantSelected), sel.Selected)
			assert.Positive(t, sel.LeafMapInputTokens, "measured against the plan of every leaf")
			assert.Positive(t, sel.MapInputTokens)
			var mapped []string
			for _, b := range res.Diagnostics.Batches {
				mapped = append(mapped, b.CommunityIDs...)
			}
			slices.Sort(mapped)
			assert.Equal(t, tc.wantSelected, mapped)
			assert.Equal(t, sel.RatingCalls+res.Diagnostics.Map.ModelCalls+1, res.Diagnostics.ModelCalls,
				"rating calls are model calls of the run")
			assert.Equal(t, 1+sel.Rounds, rn.count("prepare"), "prepare, then SelectNext at the end of each round")
			t.Logf("%s: %d history events, %d rounds, %d rating calls, %d map batches", tc.name,
				len(e.events(t, m, arn)), sel.Rounds, sel.RatingCalls, len(res.Diagnostics.Batches))
			assert.Equal(t, tc.wantCalls+len(res.Diagnostics.Batches), rn.count("map"),
				"one map-function invocation per rating attempt and per map batch")
		})
	}
}

// TestDynamicSelectionRootsUnrated: a first round none of whose batches is
// rated fails the execution with RatingFailedError, its failed result
// saved first, and nothing is mapped (docs/contract.md#dynamic-selection).
func TestDynamicSelectionRootsUnrated(t *testing.T) {
	e := newEnv(t)
	workflow.StepEngine(e.engine)
	namespace := strings.ToLower(uniqueName("ns-unrated"))
	e.loadForest(t, namespace)
	m := e.newStateMachine(t)
	queryID := uniqueName("q-unrated")
	rn := newRun()
	rn.model = ratingModel("a")
	e.lambda.register(queryID, rn)
	in := request(queryID, namespace)
	delete(in, "mapTokenBudget")
	in["selection"] = "dynamic"
	arn := e.start(t, m, queryID, in)
	out := e.wait(t, m, arn)
	require.Equal(t, sfntypes.ExecutionStatusFailed, out.Status, e.history(m, arn))
	assert.Equal(t, "RatingFailedError", aws.ToString(out.Error))
	res, err := e.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "every rating batch of the root communities failed")
	assert.Equal(t, globalsearch.RatingAttempts, rn.count("map"), "the roots' batch, tried twice, and no map batch")
	// The failed prepare's rating calls are in its result
	// (docs/contract.md#stopped-executions).
	rn.mu.Lock()
	made := sum(rn.models)
	rn.mu.Unlock()
	require.Positive(t, made)
	assert.Equal(t, made, res.Diagnostics.Selection.RatingCalls)
	assert.Equal(t, made, res.Diagnostics.ModelCalls)
}
