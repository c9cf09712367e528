package modeltest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// ConverseCall is one request the fake Converse endpoint received.
type ConverseCall struct {
	// Seq is the 1-based number of the call on its server.
	Seq int
	// RawPath is the escaped request path; ModelID the model id label of
	// the path, unescaped.
	RawPath, ModelID string
	// Stream is whether the call was a ConverseStream.
	Stream bool
	Header http.Header
	// Body is the request's JSON.
	Body map[string]any
}

// ConverseReply is one canned answer of the fake Converse endpoint: an
// error when ErrorType is set, else a success.
type ConverseReply struct {
	Status int
	// ErrorType is the X-Amzn-ErrorType of an error.
	ErrorType string
	// Text is the assistant's text of a success; Stop its stopReason
	// (end_turn when empty).
	Text, Stop                string
	InputTokens, OutputTokens int
	// CacheReadInputTokens and CacheWriteInputTokens are Bedrock's usage
	// fields of a prompt cache (PromptCache fills them); InputTokens, as
	// Bedrock reports it, leaves them out.
	CacheReadInputTokens, CacheWriteInputTokens int
	// Hang holds the call until the client gives up.
	Hang bool
	// Pieces are the text of a ConverseStream success, one
	// contentBlockDelta each (Text whole when nil); Between, when set,
	// runs after each, so a test sees what arrived before the rest.
	Pieces  []string
	Between func()
	// StreamError is the exception a ConverseStream call sends after its
	// pieces instead of ending the message (throttlingException, …);
	// CutShort ends the stream after its pieces with no messageStop.
	StreamError string
	CutShort    bool
}

// ConverseText is a successful reply of text, stopped at end_turn.
func ConverseText(text string, inputTokens, outputTokens int) ConverseReply {
	return ConverseReply{Status: http.StatusOK, Text: text, InputTokens: inputTokens, OutputTokens: outputTokens}
}

// ConverseError is a Bedrock error reply.
func ConverseError(status int, errorType string) ConverseReply {
	return ConverseReply{Status: status, ErrorType: errorType}
}

// InOrder is a script that answers the replies in order and repeats the
// last one forever.
func InOrder(replies ...ConverseReply) func(ConverseCall) ConverseReply {
	return func(call ConverseCall) ConverseReply {
		return replies[min(call.Seq, len(replies))-1]
	}
}

// ConverseServer is a fake Bedrock runtime: it speaks the Converse wire
// format (POST /model/{modelId}/converse) and ConverseStream's
// (/converse-stream, conversestream.go), answers each call with its
// script and records the calls. Any other request fails the test.
type ConverseServer struct {
	*httptest.Server
	t      testing.TB
	script func(ConverseCall) ConverseReply

	mu    sync.Mutex
	calls []ConverseCall
}

// NewConverseServer starts a ConverseServer answering with script and stops
// it when the test ends.
func NewConverseServer(t testing.TB, script func(ConverseCall) ConverseReply) *ConverseServer {
	s := &ConverseServer{t: t, script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Calls returns the calls received so far.
func (s *ConverseServer) Calls() []ConverseCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ConverseCall(nil), s.calls...)
}

// Count is the number of calls received so far.
func (s *ConverseServer) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func (s *ConverseServer) serve(w http.ResponseWriter, r *http.Request) {
	// The path is matched escaped: a model id may be an ARN, whose ':' and
	// '/' the SDK escapes in the label.
	raw := r.URL.EscapedPath()
	label, stream := strings.CutSuffix(raw, "/converse-stream")
	if !stream {
		label = strings.TrimSuffix(raw, "/converse")
	}
	if r.Method != http.MethodPost || !strings.HasPrefix(raw, "/model/") || label == raw {
		s.t.Errorf("fake Converse endpoint: unexpected %s %s", r.Method, raw)
		http.Error(w, "unexpected "+r.Method+" "+raw, http.StatusNotFound)
		return
	}
	call := ConverseCall{RawPath: raw, Header: r.Header.Clone(), Stream: stream}
	call.ModelID, _ = url.PathUnescape(strings.TrimPrefix(label, "/model/"))
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &call.Body)

	s.mu.Lock()
	call.Seq = len(s.calls) + 1
	s.calls = append(s.calls, call)
	s.mu.Unlock()
	rep := s.script(call)

	if rep.Hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-RequestId", fmt.Sprintf("00000000-0000-4000-8000-%012d", call.Seq))
	if rep.ErrorType != "" {
		w.Header().Set("X-Amzn-ErrorType", rep.ErrorType)
		w.WriteHeader(rep.Status)
		_, _ = fmt.Fprintf(w, `{"message":"%s from the fake Converse endpoint"}`, rep.ErrorType)
		return
	}
	stop := rep.Stop
	if stop == "" {
		stop = "end_turn"
	}
	if stream {
		s.streamReply(w, rep, stop)
		return
	}
	body, _ := json.Marshal(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": rep.Text}}}},
		"stopReason": stop,
		"usage":      rep.usage(),
		"metrics":    map[string]any{"latencyMs": 1},
	})
	w.WriteHeader(cmp.Or(rep.Status, http.StatusOK))
	_, _ = w.Write(body)
}

// ConverseSchema is the JSON schema a Converse call asked for in
// outputConfig.textFormat: its name and the schema's JSON text.
type ConverseSchema struct {
	Type, Name, Schema string
}

// OutputSchema returns the JSON schema the call asked for; ok is false when
// it asked for none.
func (c ConverseCall) OutputSchema() (ConverseSchema, bool) {
	cfg, _ := c.Body["outputConfig"].(map[string]any)
	format, _ := cfg["textFormat"].(map[string]any)
	structure, _ := format["structure"].(map[string]any)
	js, _ := structure["jsonSchema"].(map[string]any)
	if js == nil {
		return ConverseSchema{}, false
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	return ConverseSchema{Type: str(format, "type"), Name: str(js, "name"), Schema: str(js, "schema")}, true
}

// RefusingSchemas wraps a script to answer every call that asks for an
// output schema as a model without structured outputs does: a
// ValidationException. Calls without one get script's answer.
func RefusingSchemas(script func(ConverseCall) ConverseReply) func(ConverseCall) ConverseReply {
	return func(call ConverseCall) ConverseReply {
		if _, asked := call.OutputSchema(); asked {
			return ConverseError(http.StatusBadRequest, "ValidationException")
		}
		return script(call)
	}
}

// usage is the reply's usage object as Bedrock writes it: the cache fields
// only when the call read or wrote the cache.
func (rep ConverseReply) usage() map[string]any {
	u := map[string]any{"inputTokens": rep.InputTokens, "outputTokens": rep.OutputTokens,
		"totalTokens": rep.InputTokens + rep.OutputTokens + rep.CacheReadInputTokens + rep.CacheWriteInputTokens}
	if rep.CacheReadInputTokens > 0 || rep.CacheWriteInputTokens > 0 {
		u["cacheReadInputTokens"], u["cacheWriteInputTokens"] = rep.CacheReadInputTokens, rep.CacheWriteInputTokens
	}
	return u
}
