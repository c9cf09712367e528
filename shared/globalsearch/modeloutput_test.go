package globalsearch_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestParseMapOutput(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		answer     string
		usefulness float64
		wantErr    string
	}{
		{"spec ok", `{"answer":"Cross-sector trend","usefulness":72}`, "Cross-sector trend", 72, ""},
		{"spec zero", `{"answer":"","usefulness":0}`, "", 0, ""},
		{"fraction", `{"answer":"x","usefulness":72.5}`, "x", 72.5, ""},
		{"bounds", `{"answer":"x","usefulness":100}`, "x", 100, ""},
		{"extra keys ignored", `{"answer":"x","usefulness":5,"notes":"n"}`, "x", 5, ""},
		{"trimmed with BOM", "{\"answer\":\"\\ufeff  Trend \\u3000\\n\",\"usefulness\":5}", "Trend", 5, ""},
		{"fenced json", "Here you go:\n```json\n{\"answer\":\"a\",\"usefulness\":3}\n```\nthanks", "a", 3, ""},
		{"fenced no tag", "```\n{\"answer\":\"a\",\"usefulness\":3}\n```", "a", 3, ""},
		{"prose around", `Sure! {"answer":"a","usefulness":3} Hope it helps.`, "a", 3, ""},
		{"spec empty answer positive", `{"answer":"","usefulness":10}`, "", 0, "map output answer must not be empty when usefulness is above 0"},
		{"spec 101", `{"answer":"x","usefulness":101}`, "", 0, "map output usefulness must be a number from 0 to 100"},
		{"negative", `{"answer":"x","usefulness":-1}`, "", 0, "map output usefulness must be a number from 0 to 100"},
		{"spec string score", `{"answer":"x","usefulness":"80"}`, "", 0, "map output usefulness must be a number"},
		{"spec not json", `not json`, "", 0, "model output is not valid JSON: not json"},
		{"null", `null`, "", 0, "model output is not valid JSON: null"},
		{"array", `[1,2]`, "", 0, "map output must be a JSON object"},
		{"missing usefulness", `{"answer":"x"}`, "", 0, "map output must contain answer and usefulness fields"},
		{"answer not string", `{"answer":5,"usefulness":5}`, "", 0, "map output answer must be a string"},
		{"blank answer positive", `{"answer":"   ","usefulness":1}`, "", 0, "map output answer must not be empty when usefulness is above 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answer, u, err := gs.ParseMapOutput(tc.text)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, gs.KindModelOutput, gs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.answer, answer)
			assert.Equal(t, tc.usefulness, u)
		})
	}
}

func TestNotJSONMessageShowsFirst200CodePoints(t *testing.T) {
	text := strings.Repeat("中", 300)
	_, _, err := gs.ParseMapOutput(text)
	require.Error(t, err)
	assert.Equal(t, "model output is not valid JSON: "+strings.Repeat("中", 200)+"…", err.Error())
}

func TestParseReduceOutput(t *testing.T) {
	tests := []struct {
		name, text, want, wantErr string
	}{
		{"spec trimmed", `{"answer":"  Global trend  "}`, "Global trend", ""},
		{"fenced", "```json\n{\"answer\":\"x\"}\n```", "x", ""},
		{"spec empty", `{"answer":""}`, "", "reduce output contains an invalid answer"},
		{"not a string", `{"answer":3}`, "", "reduce output contains an invalid answer"},
		{"spec missing", `{"result":"answer"}`, "", "reduce output must contain an answer field"},
		{"array", `["answer"]`, "", "reduce output must contain an answer field"},
		{"garbage", `garbage`, "", "model output is not valid JSON: garbage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gs.ParseReduceOutput(tc.text)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, gs.KindModelOutput, gs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzParseMapOutput(f *testing.F) {
	for _, s := range []string{`{"answer":"a","usefulness":50}`, "```json\n{}\n```", `[{"answer":1}]`, "```", "{", `{"usefulness":1e400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		answer, u, err := gs.ParseMapOutput(text)
		if err != nil {
			return
		}
		if u < 0 || u > 100 || (u > 0 && strings.TrimSpace(answer) == "") {
			t.Fatalf("accepted an invalid answer: %q %v", answer, u)
		}
	})
}

func FuzzParseReduceOutput(f *testing.F) {
	for _, s := range []string{`{"answer":"a"}`, "```json\n{\"answer\":\"\"}\n```", `{"answer":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		answer, err := gs.ParseReduceOutput(text)
		if err == nil && strings.TrimSpace(answer) == "" {
			t.Fatalf("accepted a blank answer from %q", text)
		}
	})
}

func TestExtractJSONParsesWholeOrSlices(t *testing.T) {
	tests := []struct {
		name, text string
		want       any
	}{
		{"whole", `{"a":"b"}`, map[string]any{"a": "b"}},
		{"trailing prose falls back to the slice", `{"a":"b"} thanks!`, map[string]any{"a": "b"}},
		{"array", ` [1] `, []any{json.Number("1")}},
		{"fence body wins", "```json\n{\"a\":\"fenced\"}\n```\n{\"a\":\"outside\"}", map[string]any{"a": "fenced"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gs.ExtractJSON(tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := gs.ExtractJSON(`{"a":1} {"b":2}`)
	assert.Error(t, err, "two values are not one JSON value")
}
