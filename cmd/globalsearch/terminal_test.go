package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// escapeModel is an OpenAI-compatible server whose answers are laced with
// terminal escapes: a map answer per batch, then a reduce answer.
func escapeModel(t *testing.T, mapAnswer, reduceAnswer string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if !assert.NoError(t, err) {
			return
		}
		content := reduceAnswer
		if strings.Contains(string(body), "[Community ID: ") {
			content = mapAnswer
		}
		resp, err := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5},
		})
		if assert.NoError(t, err) {
			_, _ = w.Write(resp)
		}
	}))
	t.Cleanup(srv.Close)
	return "openai:escapes@" + srv.URL + "/v1"
}

// docs/contract.md#local: run's text output never passes a terminal escape
// from model or index text to the terminal, on stdout (the answer) or
// stderr (an error); --json prints the exact text.
func TestRunTextOutputDisarmsTerminalEscapes(t *testing.T) {
	const answer = "Solar \x1b]0;pwned\agrew\x1b[2J.\r\nSecond\tline \u009b31m [Data: Communities (solar)]"
	reduceOut, err := json.Marshal(map[string]string{"answer": answer})
	require.NoError(t, err)
	path := writeIndex(t, smallIndex())
	raw := []string{"\x1b", "\x07", "\u009b", "\r"}

	t.Run("answer", func(t *testing.T) {
		spec := escapeModel(t, `{"answer":"solar grew","usefulness":80}`, string(reduceOut))
		env, out, errOut := testEnv("")
		require.Equal(t, 0, runMain(context.Background(), env, []string{"run", "--index", path, "--query", "q", "--model", spec, "--no-cache"}), errOut.String())
		for _, c := range raw {
			assert.NotContains(t, out.String(), c)
		}
		assert.Contains(t, out.String(), `Solar \x1b]0;pwned\agrew\x1b[2J.`+"\nSecond\tline "+`\u009b31m`)
	})
	t.Run("json is exact", func(t *testing.T) {
		spec := escapeModel(t, `{"answer":"solar grew","usefulness":80}`, string(reduceOut))
		env, out, errOut := testEnv("")
		require.Equal(t, 0, runMain(context.Background(), env, []string{"run", "--index", path, "--query", "q", "--model", spec, "--no-cache", "--json"}), errOut.String())
		var res globalsearch.Result
		require.NoError(t, json.Unmarshal(out.Bytes(), &res))
		assert.Equal(t, strings.TrimSpace(answer), res.Answer)
	})
	t.Run("error", func(t *testing.T) {
		spec := escapeModel(t, "not json \x1b]0;pwned\a\x1b[2J", string(reduceOut))
		env, _, errOut := testEnv("")
		require.Equal(t, 1, runMain(context.Background(), env, []string{"run", "--index", path, "--query", "q", "--model", spec, "--no-cache"}))
		for _, c := range raw {
			assert.NotContains(t, errOut.String(), c)
		}
		assert.Contains(t, errOut.String(), `model output is not valid JSON: not json \x1b]0;pwned\a\x1b[2J`)
	})
}

// A partial run's batch errors go to stderr through terminalText too.
func TestPrintMapErrorsDisarmsTerminalEscapes(t *testing.T) {
	var w strings.Builder
	printMapErrors(&w, []globalsearch.BatchFailure{{BatchIndex: 0, Message: "model output is not valid JSON: \x1b[2J"}})
	assert.Equal(t, "map batch 0: model output is not valid JSON: \\x1b[2J\n", w.String())
}
