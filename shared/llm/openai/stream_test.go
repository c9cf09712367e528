package openai

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
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// chunk is one data: line of a chat completion stream.
func chunk(content, finish string) string {
	choice := map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "llama3.1", "choices": []any{choice}})
	return "data: " + string(b) + "\n\n"
}

// usageChunk is the last chunk stream_options.include_usage asks for: no
// choices, the usage.
func usageChunk(in, out int) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "llama3.1", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}})
	return "data: " + string(b) + "\n\n"
}

// sseReply is a stream of the pieces, finished with finish, its usage and [DONE].
func sseReply(finish string, in, out int, pieces ...string) reply {
	var b strings.Builder
	for i, p := range pieces {
		f := ""
		if i == len(pieces)-1 {
			f = finish
		}
		b.WriteString(chunk(p, f))
	}
	if finish != "" {
		b.WriteString(usageChunk(in, out))
		b.WriteString("data: [DONE]\n\n")
	}
	return reply{status: http.StatusOK, header: map[string]string{"Content-Type": "text/event-stream"}, body: b.String()}
}

// asJSON is r sent as application/json.
func asJSON(r reply) reply {
	r.header = map[string]string{"Content-Type": "application/json"}
	return r
}

// streamingServer answers a streamed call as sseReply of text cut in
// three and any other as completion.
func streamingServer(t *testing.T, text string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		rep := completion(text, "stop", 120, 12)
		if body["stream"] == true {
			third := len(text) / 3
			rep = sseReply("stop", 120, 12, text[:third], text[third:2*third], text[2*third:])
		}
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamingConformance(t *testing.T) {
	modeltest.RunStreaming(t, func(t *testing.T) globalsearch.StreamingModel {
		srv := streamingServer(t, `{"answer":"Sorrel Bank is a wind farm [Data: Communities (c-wind)].","usefulness":80}`)
		m, err := New(srv.URL+"/v1/", "llama3.1", fast)
		require.NoError(t, err)
		return m
	})
}

// CompleteStream sends stream: true with the usage asked for, passes on
// each chunk's content in order, and fails as Complete fails.
func TestCompleteStream(t *testing.T) {
	tooLong := strings.Repeat("x", int(globalsearch.MaxReplyBytes(1)))
	cases := []struct {
		name       string
		replies    []reply
		maxTokens  int
		wantPieces []string
		wantStop   string
		wantOut    int
		wantKind   globalsearch.Kind // KindInternal: no error
		wantInErr  string
		wantCalls  int
		wantFormat []string // per call: the response_format type sent
	}{
		{name: "pieces and usage", replies: []reply{sseReply("stop", 30, 9, `{"answer":`, `"Sorrel `, `Bank"}`)},
			wantPieces: []string{`{"answer":`, `"Sorrel `, `Bank"}`}, wantStop: "stop", wantOut: 9, wantCalls: 1, wantFormat: []string{"json_schema"}},
		{name: "a refused format steps down", replies: []reply{{status: 400, body: `{"error":{"message":"response_format json_schema is not supported"}}`},
			sseReply("stop", 3, 2, `{"answer":"ok"}`)},
			wantPieces: []string{`{"answer":"ok"}`}, wantStop: "stop", wantOut: 2, wantCalls: 2, wantFormat: []string{"json_schema", "json_object"}},
		{name: "throttled", replies: []reply{{status: 429, body: `{"error":{"message":"slow down"}}`}},
			wantKind: globalsearch.KindThrottled, wantInErr: "HTTP 429", wantCalls: 1, wantFormat: []string{"json_schema"}},
		{name: "stopped at the limit", replies: []reply{sseReply("length", 5, 64, `{"answer":"cut`)},
			wantPieces: []string{`{"answer":"cut`}, wantStop: "length", wantOut: 64, wantKind: globalsearch.KindModelOutput, wantInErr: "reduceOutputReserve", wantCalls: 1, wantFormat: []string{"json_schema"}},
		{name: "a stream cut short", replies: []reply{sseReply("", 0, 0, `{"answer":"half`)},
			wantPieces: []string{`{"answer":"half`}, wantKind: globalsearch.KindModel, wantInErr: "no finish_reason", wantCalls: 1, wantFormat: []string{"json_schema"}},
		{name: "an error event", replies: []reply{{status: 200, header: map[string]string{"Content-Type": "text/event-stream"},
			body: chunk(`{"answer":`, "") + `data: {"error":{"message":"model crashed"}}` + "\n\n"}},
			wantPieces: []string{`{"answer":`}, wantKind: globalsearch.KindModel, wantInErr: "model crashed", wantCalls: 1, wantFormat: []string{"json_schema"}},
		{name: "a reply past its cap", maxTokens: 1, replies: []reply{sseReply("stop", 1, 1, `{"answer":"`, tooLong)},
			wantPieces: []string{`{"answer":"`}, wantKind: globalsearch.KindModelOutput, wantInErr: "is refused", wantCalls: 1, wantFormat: []string{"json_schema"}},
		{name: "a server that answers whole", replies: []reply{asJSON(completion(`{"answer":"whole"}`, "stop", 4, 3))},
			wantPieces: []string{`{"answer":"whole"}`}, wantStop: "stop", wantOut: 3, wantCalls: 1, wantFormat: []string{"json_schema"}},
	}
	for _, tc := range cases {
		if tc.maxTokens == 0 {
			tc.maxTokens = 64
		}
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeServer{replies: tc.replies}
			srv := httptest.NewServer(fake)
			t.Cleanup(srv.Close)
			m, err := New(srv.URL+"/v1/", "llama3.1", fast, WithMaxAttempts(1))
			require.NoError(t, err)
			var pieces []string
			resp, err := m.CompleteStream(context.Background(), globalsearch.ModelRequest{
				Stage: globalsearch.StageReduce, Prompt: "Question: q", MaxTokens: tc.maxTokens,
			}, func(s string) { pieces = append(pieces, s) })

			assert.Equal(t, tc.wantPieces, pieces)
			if tc.wantKind == globalsearch.KindInternal {
				require.NoError(t, err)
				assert.Equal(t, strings.Join(tc.wantPieces, ""), resp.Text)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "kind of %v", err)
				assert.Contains(t, err.Error(), tc.wantInErr)
			}
			assert.Equal(t, tc.wantStop, resp.StopReason)
			assert.Equal(t, tc.wantOut, resp.OutputTokens)
			calls := fake.snapshot()
			require.Len(t, calls, tc.wantCalls)
			for i, c := range calls {
				assert.Equal(t, true, c.body["stream"], "a streamed call")
				assert.Equal(t, map[string]any{"include_usage": true}, c.body["stream_options"])
				format, _ := c.body["response_format"].(map[string]any)
				assert.Equal(t, tc.wantFormat[i], format["type"], "call %d", i+1)
			}
		})
	}
}

// A negative reserve is refused before any call, as Complete refuses it.
func TestCompleteStreamRefusesANegativeReserve(t *testing.T) {
	fake := &fakeServer{replies: []reply{sseReply("stop", 1, 1, "x")}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	m, err := New(srv.URL+"/v1/", "llama3.1", fast)
	require.NoError(t, err)
	_, err = m.CompleteStream(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, MaxTokens: -1}, func(string) {})
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Empty(t, fake.snapshot())
}

// A streamed body past the read cap fails its read, whatever its framing.
func TestBoundedStream(t *testing.T) {
	b := &boundedStream{ReadCloser: io.NopCloser(strings.NewReader("abcdef")), left: 4}
	got, err := io.ReadAll(b)
	assert.ErrorIs(t, err, errStreamTooLarge)
	assert.Equal(t, "abcd", string(got))
}
