package statemachine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// scripted answers every map batch with usefulness 80 and reduce with an
// answer.
type scripted struct{}

func (scripted) Complete(_ context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if req.Stage == globalsearch.StageReduce {
		return globalsearch.ModelResponse{Text: `{"answer":"Trade and the port shaped the decade."}`}, nil
	}
	return globalsearch.ModelResponse{Text: `{"answer":"The port grew.","usefulness":80}`}, nil
}

type recordingStarter struct{ started map[string][]byte }

func (s *recordingStarter) Start(_ context.Context, name string, input []byte) error {
	s.started[name] = input
	return nil
}

func (s *recordingStarter) Execution(_ context.Context, name string) (string, string, error) {
	if _, ok := s.started[name]; !ok {
		return "", "", nil
	}
	return "RUNNING", "", nil
}

func (s *recordingStarter) Stop(context.Context, string, string) error { return nil }

func TestEventsDecodeStrictlyThroughTheirHandlers(t *testing.T) {
	files, err := filepath.Glob("../events/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	f, err := indexfile.Load("../testdata/sample-index.json")
	require.NoError(t, err)
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	h := &workflow.Handlers{
		Engine:   &globalsearch.Engine{Index: s, Runs: s, Model: scripted{}, MaxBatches: workflow.InlineMaxBatches},
		Defaults: globalsearch.SpecDefaults,
	}
	apiHandler := &api.Handler{Runs: s, Starter: &recordingStarter{started: map[string][]byte{}}, Defaults: globalsearch.SpecDefaults}
	// Files run in this order so that map and reduce find the plan prepare
	// saved, api-get finds the query api-post started, and api-delete
	// cancels it.
	order := []string{"prepare", "map", "reduce", "eventbridge", "api-post", "api-get", "api-delete"}
	slices.SortStableFunc(files, func(a, b string) int {
		return slices.IndexFunc(order, func(p string) bool { return strings.HasPrefix(filepath.Base(a), p) }) -
			slices.IndexFunc(order, func(p string) bool { return strings.HasPrefix(filepath.Base(b), p) })
	})
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var target any
			var fn any
			switch {
			case strings.HasPrefix(name, "prepare"):
				target, fn = &workflow.PrepareInput{}, h.Prepare
			case strings.HasPrefix(name, "map"):
				target, fn = &workflow.MapInput{}, h.Map
			case strings.HasPrefix(name, "reduce"):
				target, fn = &workflow.ReduceInput{}, h.Reduce
			case strings.HasPrefix(name, "eventbridge"):
				// An event as EventBridge sends it reaches the reduce
				// function through the rule's input transformer.
				data = stoppedRuleInput(t, data)
				target, fn = &workflow.ReduceInput{}, h.Reduce
			case strings.HasPrefix(name, "api"):
				target, fn = &events.APIGatewayV2HTTPRequest{}, apiHandler.Handle
			default:
				t.Fatalf("no handler for %s: name it prepare*, map*, reduce*, eventbridge* or api*", name)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(target), "unknown fields are contract breaks")

			out, err := lambda.NewHandlerWithOptions(fn, workflow.Options()...).Invoke(context.Background(), data)
			if strings.Contains(name, "-bad") {
				if strings.HasPrefix(name, "api") {
					require.NoError(t, err)
					assert.Contains(t, string(out), `"statusCode":400`)
					return
				}
				require.Error(t, err)
				assert.Equal(t, "InvalidInputError", workflow.ErrorType(err))
				return
			}
			require.NoError(t, err, "%s", out)
			if strings.HasPrefix(name, "api") {
				var resp events.APIGatewayV2HTTPResponse
				require.NoError(t, json.Unmarshal(out, &resp))
				assert.Less(t, resp.StatusCode, 300, resp.Body)
			}
		})
	}
}

// stoppedRuleInput is what the StoppedExecutionRule's input transformer
// (template.yaml) makes of an event: its one variable, the detail,
// inserted as JSON where the template names it.
func stoppedRuleInput(t *testing.T, event []byte) []byte {
	t.Helper()
	tpl, err := os.ReadFile("../template.yaml")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)StoppedExecutionRule:.*?InputPathsMap:\s*detail: \$\.detail\s*InputTemplate: '([^']*)'`).FindSubmatch(tpl)
	require.NotNil(t, m, "the rule maps $.detail to <detail> and has an InputTemplate")
	var ev struct {
		Detail json.RawMessage `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(event, &ev))
	require.NotEmpty(t, ev.Detail)
	return bytes.ReplaceAll(m[1], []byte("<detail>"), ev.Detail)
}

// TestStoppedRuleInputIsTheSample: the reduce function's stopped sample
// (for sam local invoke) is what the rule makes of the EventBridge sample.
func TestStoppedRuleInputIsTheSample(t *testing.T) {
	event, err := os.ReadFile("../events/eventbridge-execution-aborted.json")
	require.NoError(t, err)
	sample, err := os.ReadFile("../events/reduce-stopped.json")
	require.NoError(t, err)
	assert.JSONEq(t, string(sample), string(stoppedRuleInput(t, event)))
}
