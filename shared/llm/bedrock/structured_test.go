package bedrock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

const haiku45 = "us.anthropic.claude-haiku-4-5-20251001-v1:0"

func TestStructuredOutput(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	answer := ok(`{"answer":"a","usefulness":50}`, "end_turn", 120, 15)
	cases := []struct {
		name       string
		modelID    string
		opts       []bedrock.Option
		script     func(modeltest.ConverseCall) modeltest.ConverseReply
		calls      int    // Complete calls made
		wantAsked  []bool // outputConfig sent, per request the server got
		wantKind   globalsearch.Kind
		wantLatest bool // Structured() after the calls
	}{
		{name: "auto: a model known to support it", modelID: haiku45, script: modeltest.InOrder(answer),
			calls: 2, wantAsked: []bool{true, true}, wantLatest: true},
		{name: "auto: an inference profile ARN of one", modelID: "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0",
			script: modeltest.InOrder(answer), calls: 1, wantAsked: []bool{true}, wantLatest: true},
		{name: "auto: another model", modelID: haiku, script: modeltest.InOrder(answer),
			calls: 1, wantAsked: []bool{false}},
		{name: "on: any model", modelID: haiku, opts: []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOn)},
			script: modeltest.InOrder(answer), calls: 1, wantAsked: []bool{true}, wantLatest: true},
		{name: "off", modelID: haiku45, opts: []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOff)},
			script: modeltest.InOrder(answer), calls: 1, wantAsked: []bool{false}},
		{name: "refused: resent once without, remembered", modelID: haiku, opts: []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOn)},
			script: modeltest.RefusingSchemas(modeltest.InOrder(answer)), calls: 2, wantAsked: []bool{true, false, false}},
		{name: "refused for another reason: the schema is kept", modelID: haiku45,
			script: modeltest.InOrder(fail(400, "ValidationException"), fail(400, "ValidationException"), answer),
			calls:  2, wantAsked: []bool{true, false, true}, wantKind: globalsearch.KindModel, wantLatest: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, tc.script)
			m, err := bedrock.New(testConfig(fake.URL), tc.modelID, append([]bedrock.Option{bedrock.WithMaxBackoff(time.Millisecond)}, tc.opts...)...)
			require.NoError(t, err)

			var errs []error
			for range tc.calls {
				resp, err := m.Complete(context.Background(), modeltest.Requests()[0])
				errs = append(errs, err)
				if err == nil {
					assert.Equal(t, `{"answer":"a","usefulness":50}`, resp.Text)
				}
			}

			if tc.wantKind != globalsearch.KindInternal {
				require.Error(t, errs[0], "the first call fails: both sends were refused")
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(errs[0]))
				assert.Contains(t, errs[0].Error(), "ValidationException")
			} else {
				for _, err := range errs {
					assert.NoError(t, err)
				}
			}
			var asked []bool
			for _, c := range fake.Calls() {
				_, a := c.OutputSchema()
				asked = append(asked, a)
			}
			assert.Equal(t, tc.wantAsked, asked)
			assert.Equal(t, tc.wantLatest, m.Structured())
		})
	}
}

// TestStructuredOutputWire: the schema goes out as Converse's
// outputConfig.textFormat, the stage's own schema as JSON text.
func TestStructuredOutputWire(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	for _, req := range modeltest.Requests() {
		t.Run(string(req.Stage), func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(ok(`{"answer":"Sorrel Bank.","usefulness":5}`, "end_turn", 1, 1)))
			m, err := bedrock.New(testConfig(fake.URL), haiku45)
			require.NoError(t, err)
			_, err = m.Complete(context.Background(), req)
			require.NoError(t, err)
			require.Equal(t, 1, fake.Count())
			got, asked := fake.Calls()[0].OutputSchema()
			require.True(t, asked)
			want := globalsearch.StageOutputSchema(req.Stage)
			assert.Equal(t, "json_schema", got.Type)
			assert.Equal(t, want.Name, got.Name)
			assert.JSONEq(t, want.JSON(), got.Schema)
		})
	}
}

func TestSupportsStructuredOutput(t *testing.T) {
	cases := map[string]bool{
		"anthropic.claude-haiku-4-5-20251001-v1:0":                                             true,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":                                         true,
		"eu.anthropic.claude-opus-4-5-20251101-v1:0":                                           true,
		"global.anthropic.claude-opus-4-6-v1":                                                  true,
		"arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0": true,
		" US.Anthropic.Claude-Haiku-4-5-20251001-v1:0 ":                                        true,
		haiku: false,
		"us.anthropic.claude-3-7-sonnet-20250219-v1:0": false,
		"amazon.nova-pro-v1:0":                         false,
		"meta.llama3-1-70b-instruct-v1:0":              false,
		"":                                             false,
	}
	for id, want := range cases {
		t.Run(id, func(t *testing.T) {
			assert.Equal(t, want, bedrock.SupportsStructuredOutput(id))
		})
	}
}

// TestSchemaOutputSavesAttempts measures map attempts per batch over a whole
// search against a model that wraps its JSON in prose a third of the time,
// without and with outputConfig's schema.
func TestSchemaOutputSavesAttempts(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	chatty := func(call modeltest.ConverseCall) modeltest.ConverseReply {
		prompt := ""
		if msgs, _ := call.Body["messages"].([]any); len(msgs) > 0 {
			content, _ := msgs[0].(map[string]any)["content"].([]any)
			if len(content) > 0 {
				prompt, _ = content[0].(map[string]any)["text"].(string)
			}
		}
		_, asked := call.OutputSchema()
		return ok(modeltest.ChattyAnswer(call.Seq, prompt, asked), "end_turn", 900, 40)
	}
	perBatch := map[bedrock.StructuredOutput]float64{}
	for _, mode := range []bedrock.StructuredOutput{bedrock.StructuredOff, bedrock.StructuredOn} {
		fake := modeltest.NewConverseServer(t, chatty)
		m, err := bedrock.New(testConfig(fake.URL), haiku45, bedrock.WithStructuredOutput(mode))
		require.NoError(t, err)
		e, ns := sampleEngine(t, m)
		batches, calls := modeltest.SearchAttempts(t, e, ns)
		require.Greater(t, batches, 10, "enough batches to measure")
		perBatch[mode] = float64(calls) / float64(batches)
		t.Logf("outputConfig %v: %d batches, %d map calls, %.3f attempts per batch", mode == bedrock.StructuredOn, batches, calls, perBatch[mode])
	}
	assert.Equal(t, 1.0, perBatch[bedrock.StructuredOn], "schema output: every batch answers at its first attempt")
	assert.Greater(t, perBatch[bedrock.StructuredOff], perBatch[bedrock.StructuredOn])
}

// sampleEngine is an engine over the sample index in memory, calling model.
func sampleEngine(t *testing.T, model globalsearch.Model) (*globalsearch.Engine, string) {
	t.Helper()
	f, err := indexfile.Load(modeltest.SampleIndex)
	require.NoError(t, err)
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), f.Namespace, f.Records))
	return &globalsearch.Engine{Index: store, Runs: store, Model: model}, f.Namespace
}
