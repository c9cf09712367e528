package modeltest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// TestChattyAnswer: every third answer without a schema breaks the output
// rules, the others and every schema answer pass them, for both stages.
func TestChattyAnswer(t *testing.T) {
	reqs := modeltest.Requests()
	parse := map[globalsearch.Stage]func(string) error{
		globalsearch.StageMap:    func(s string) error { _, _, err := globalsearch.ParseMapOutput(s); return err },
		globalsearch.StageReduce: func(s string) error { _, err := globalsearch.ParseReduceOutput(s); return err },
	}
	for _, req := range reqs {
		for seq := 1; seq <= 6; seq++ {
			for _, asked := range []bool{false, true} {
				err := parse[req.Stage](modeltest.ChattyAnswer(seq, req.Prompt, asked))
				if seq%3 == 0 && !asked {
					assert.Error(t, err, "%s call %d without a schema is wrapped in prose", req.Stage, seq)
					assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err))
				} else {
					assert.NoError(t, err, "%s call %d (schema %v)", req.Stage, seq, asked)
				}
			}
		}
	}
}

func TestOutputSchemaOfACall(t *testing.T) {
	cases := []struct {
		name   string
		body   map[string]any
		want   modeltest.ConverseSchema
		wantOK bool
	}{
		{"none", map[string]any{"messages": []any{}}, modeltest.ConverseSchema{}, false},
		{"an outputConfig without a schema", map[string]any{"outputConfig": map[string]any{"textFormat": map[string]any{"type": "json_schema"}}}, modeltest.ConverseSchema{}, false},
		{"a schema", map[string]any{"outputConfig": map[string]any{"textFormat": map[string]any{"type": "json_schema",
			"structure": map[string]any{"jsonSchema": map[string]any{"name": "map_answer", "schema": `{"type":"object"}`}}}}},
			modeltest.ConverseSchema{Type: "json_schema", Name: "map_answer", Schema: `{"type":"object"}`}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := modeltest.ConverseCall{Body: tc.body}.OutputSchema()
			assert.Equal(t, tc.wantOK, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
