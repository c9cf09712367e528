package lambdalocal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/lambdalocal"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

const seedQuery = "What are the main themes across Veloria's development over the decade?"

// panicModel is a model with a bug: every call panics.
type panicModel struct{}

func (panicModel) Complete(context.Context, globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	panic("model bug")
}

// config is the sample index in an empty memstore with model, as
// `globalsearch invoke` wires it.
func config(t *testing.T, model globalsearch.Model) (lambdalocal.Config, *memstore.Store) {
	t.Helper()
	f, err := indexfile.Load("../../testdata/sample-index.json")
	require.NoError(t, err)
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	defaults := globalsearch.SpecDefaults
	defaults.Namespace = f.Namespace
	e := &globalsearch.Engine{Index: s, Model: model, MaxBatches: workflow.DefaultMaxBatches}
	return lambdalocal.Config{Engine: e, Runs: s, Defaults: defaults, SeedQuery: seedQuery}, s
}

func event(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../events", name))
	require.NoError(t, err)
	return data
}

// Every function runs on its events/*.json, the store seeded for it; a
// handler's error comes back as Lambda's envelope, named as the ASL
// catches it.
func TestInvoke(t *testing.T) {
	auto := []byte(`{"request": {"query": "q", "queryId": "q-auto", "communityLevel": "auto", "maxMapInputTokens": 1}}`)
	cases := []struct {
		name, function string
		payload        []byte
		wantOut        string
		wantErrType    string // "" when the handler succeeds
	}{
		{"prepare", "prepare", event(t, "prepare.json"), `"batchIndexes":[`, ""},
		{"prepare rejects", "prepare", event(t, "prepare-bad.json"), `"errorType":"InvalidInputError"`, "InvalidInputError"},
		{"prepare applies communityLevel auto", "prepare", auto, `raise maxMapInputTokens to at least`, "InvalidInputError"},
		{"map seeds a plan", "map", event(t, "map.json"), `"batchIndex":0`, ""},
		{"reduce seeds answers", "reduce", event(t, "reduce-partial.json"), `"status":"partial"`, ""},
		{"reduce records a stopped execution", "reduce", event(t, "reduce-stopped.json"), `"status":"cancelled"`, ""},
		{"api post", "api", event(t, "api-post.json"), `"statusCode":202`, ""},
		{"api get", "api", event(t, "api-get.json"), `"statusCode":200`, ""},
		{"api delete cancels a recorded query", "api", event(t, "api-delete.json"), `\"status\":\"cancelled\"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := config(t, offline.New())
			out, err := lambdalocal.Invoke(t.Context(), cfg, tc.function, tc.name+".json", tc.payload)
			assert.Contains(t, string(out), tc.wantOut)
			if tc.wantErrType == "" {
				require.NoError(t, err)
				return
			}
			var fe *lambdalocal.FunctionError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.wantErrType, fe.Type)
			var envelope map[string]string
			require.NoError(t, json.Unmarshal(out, &envelope))
			assert.Equal(t, map[string]string{"errorType": fe.Type, "errorMessage": fe.Err.Error()}, envelope)
		})
	}
}

// An api GET reads the execution the seeding started through localrun,
// the stand-in serve uses: only its status says that a search which
// panicked ended without a result.
func TestAPIGetRunsThroughLocalrun(t *testing.T) {
	cfg, s := config(t, panicModel{})
	out, err := lambdalocal.Invoke(t.Context(), cfg, "api", "api-get.json", event(t, "api-get.json"))
	require.NoError(t, err)
	var resp events.APIGatewayV2HTTPResponse
	require.NoError(t, json.Unmarshal(out, &resp))
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, resp.Body, `"status":"failed"`)
	assert.Contains(t, resp.Body, "the execution ended FAILED before it saved a result: internal error: model bug")
	_, err = s.Result(t.Context(), "q-example-api-1")
	assert.ErrorIs(t, err, globalsearch.ErrNotFound)
}

// A POST's search has run to its result when Invoke returns.
func TestAPIPostWaitsForItsExecution(t *testing.T) {
	cfg, s := config(t, offline.New())
	out, err := lambdalocal.Invoke(t.Context(), cfg, "api", "api-post.json", event(t, "api-post.json"))
	require.NoError(t, err)
	var resp events.APIGatewayV2HTTPResponse
	require.NoError(t, json.Unmarshal(out, &resp))
	require.Equal(t, 202, resp.StatusCode, resp.Body)
	var accepted struct{ QueryID string }
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &accepted))
	require.NotEmpty(t, accepted.QueryID)
	res, err := s.Result(t.Context(), accepted.QueryID)
	require.NoError(t, err)
	assert.Equal(t, globalsearch.StatusCompleted, res.Status)
}

// An unknown function, or an event of another function, is refused before
// anything is seeded or run.
func TestInvokeRefusesTheWrongEvent(t *testing.T) {
	cases := []struct{ name, function, file, want string }{
		{"unknown function", "nope", "map.json", `unknown function "nope": prepare, map, reduce or api`},
		{"map given a prepare event", "map", "prepare.json",
			"prepare.json is a prepare event (it has \"request\"), not a map event: run `globalsearch invoke prepare --event prepare.json`, or give map a map event such as events/map.json"},
		{"prepare given a map event", "prepare", "map.json", `map.json is a map event (it has "batchIndex"), not a prepare event`},
		{"map given a reduce event", "map", "reduce.json", `reduce.json is a reduce event (it has "mapResults"), not a map event`},
		{"reduce given an api event", "reduce", "api-get.json", `api-get.json is an api event (it has "routeKey"), not a reduce event`},
		{"api given a map event", "api", "map.json", `map.json is a map event (it has "batchIndex"), not an api event`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, s := config(t, offline.New())
			out, err := lambdalocal.Invoke(t.Context(), cfg, tc.function, tc.file, event(t, tc.file))
			var refused *lambdalocal.EventError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, refused.Message, tc.want)
			assert.Nil(t, out)
			_, err = s.Plan(t.Context(), "q-example-1")
			assert.ErrorIs(t, err, globalsearch.ErrNotFound, "nothing seeded")
		})
	}
}
