package localserver

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
)

// slowReduce is the offline model whose final reduce call streams the
// first half of its reply's pieces, then holds the rest until release is
// closed: the answer is on its way while the run has not ended.
type slowReduce struct {
	globalsearch.StreamingModel
	release chan struct{}
}

func newSlowReduce() slowReduce {
	return slowReduce{StreamingModel: offline.New(), release: make(chan struct{})}
}

func (m slowReduce) CompleteStream(ctx context.Context, req globalsearch.ModelRequest, onText func(string)) (globalsearch.ModelResponse, error) {
	if req.Stage != globalsearch.StageReduce {
		return m.StreamingModel.CompleteStream(ctx, req, onText)
	}
	var pieces []string
	resp, err := m.StreamingModel.CompleteStream(ctx, req, func(s string) { pieces = append(pieces, s) })
	half := len(pieces) / 2
	for _, p := range pieces[:half] {
		onText(p)
	}
	select {
	case <-m.release:
	case <-ctx.Done():
		return globalsearch.ModelResponse{}, ctx.Err()
	}
	for _, p := range pieces[half:] {
		onText(p)
	}
	return resp, err
}

// sse is one server-sent event as read off the wire.
type sse struct{ name, data string }

// readEvents reads the events of body, comments included as name ":", to
// out until the body ends.
func readEvents(body *bufio.Reader, out chan<- sse) {
	defer close(out)
	var ev sse
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev != (sse{}) {
				out <- ev
			}
			ev = sse{}
		case strings.HasPrefix(line, ":"):
			ev.name = ":"
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		}
	}
}

// startQuery posts question to serve at addr and opens its event stream.
func startQuery(t *testing.T, addr, question string) (queryID string, events <-chan sse) {
	t.Helper()
	resp, err := http.Post("http://"+addr+"/namespaces/sample/queries", "application/json",
		strings.NewReader(`{"query":`+strconvQuote(question)+`}`))
	require.NoError(t, err)
	var started struct{ QueryID, Location string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&started))
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	stream, err := http.Get("http://" + addr + started.Location + "/events")
	require.NoError(t, err)
	t.Cleanup(func() { stream.Body.Close() })
	require.Equal(t, http.StatusOK, stream.StatusCode)
	assert.Equal(t, "text/event-stream", stream.Header.Get("Content-Type"))
	assert.Equal(t, "no-store", stream.Header.Get("Cache-Control"))
	ch := make(chan sse, 64)
	go readEvents(bufio.NewReader(stream.Body), ch)
	return started.QueryID, ch
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The event stream sends the answer while the model writes it, outlives
// the server's read timeout (no write timeout cuts it), keeps an idle
// stream alive with comments, and ends with `end` once the run has ended;
// the result holds the answer the stream spelled.
func TestServeStreamsTheAnswerAsEvents(t *testing.T) {
	model := newSlowReduce()
	s, addr := startServe(t, func(c *Config) {
		c.Engine.Model = model
		c.ReadTimeout = 200 * time.Millisecond
		c.Heartbeat = 50 * time.Millisecond
	})
	queryID, events := startQuery(t, addr, "What are the main themes across Veloria's development?")

	var text strings.Builder
	var last sse
	beats := 0
	for ev := range events {
		last = ev
		switch ev.name {
		case "answer":
			var a AnswerEvent
			require.NoError(t, json.Unmarshal([]byte(ev.data), &a), ev.data)
			assert.Equal(t, 1, a.Attempt)
			assert.Equal(t, text.Len(), a.Offset, "each piece continues where the last ended")
			if text.Len() == 0 {
				status, _, err := s.starter.Execution(context.Background(), queryID)
				require.NoError(t, err)
				assert.Equal(t, "RUNNING", status, "the answer streams before the run ends")
			}
			text.WriteString(a.Text)
		case ":":
			if beats++; beats == 1 {
				// Held past the read timeout, the stream stays open.
				time.Sleep(2 * 200 * time.Millisecond)
				close(model.release)
			}
		}
		if ev.name == "end" {
			break
		}
	}
	assert.Equal(t, "end", last.name, "the stream ends once the run has")
	assert.JSONEq(t, `{"queryId":"`+queryID+`"}`, last.data)
	assert.Positive(t, beats, "an idle stream sends comments")
	res, err := s.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, res.Answer, strings.TrimSpace(text.String()), "the stream spelled the stored answer")
}

// A stream of a query that is not this namespace's, or of a bad
// namespace, is the API's error; a stream of a run that has ended says
// so at once.
func TestServeEventsRefuseUnknownQueries(t *testing.T) {
	l, srv := localServer(t, nil)
	done := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?","queryId":"q-done"}`, nil)
	require.Equal(t, http.StatusAccepted, done.status, done.body)
	<-l.starter.Done("q-done")

	tests := []struct {
		name, path string
		status     int
		want       string
	}{
		{"unknown query", "/namespaces/sample/queries/q-nope/events", http.StatusNotFound, "no query with id q-nope in namespace sample"},
		{"another namespace's query", "/namespaces/other/queries/q-done/events", http.StatusNotFound, "no query with id q-done in namespace other"},
		{"bad namespace", "/namespaces/Bad!/queries/q-done/events", http.StatusBadRequest, "invalid_input"},
		{"a run that has ended", "/namespaces/sample/queries/q-done/events", http.StatusOK, "event: end\ndata: {\"queryId\":\"q-done\"}\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := overHTTP(t, srv, http.MethodGet, tc.path, "", nil)
			assert.Equal(t, tc.status, got.status)
			assert.Contains(t, got.body, tc.want)
		})
	}
}

// A shutdown ends the streams open at once instead of waiting out its
// grace for them.
func TestServeShutdownEndsStreams(t *testing.T) {
	model := newSlowReduce()
	ctx, cancel := context.WithCancel(context.Background())
	s := New(ctx, configOver(t, sampleFile(t), func(c *Config) { c.Engine.Model = model }))
	require.NoError(t, s.Listen())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	var once sync.Once
	t.Cleanup(func() { once.Do(cancel) })

	_, events := startQuery(t, s.Addr().String(), "What are the main themes?")
	first := <-events
	require.Equal(t, "answer", first.name)
	once.Do(cancel)
	for range events {
	}
	select {
	case err := <-served:
		assert.NoError(t, err)
	case <-time.After(shutdownGrace / 2):
		t.Fatal("serve waited for the open stream")
	}
}

// The hub drops a late piece of an older attempt and starts a newer one
// anew.
func TestAnswerHubKeepsTheNewestAttempt(t *testing.T) {
	h := newAnswerHub()
	h.AnswerText("q", 1, "first ")
	h.AnswerText("q", 2, "second")
	h.AnswerText("q", 1, "late")
	attempt, text, _ := h.read("q", 1, 6)
	assert.Equal(t, 2, attempt)
	assert.Equal(t, "second", text, "a new attempt is read from its start")
	_, text, _ = h.read("q", 2, 3)
	assert.Equal(t, "ond", text)
	h.forget("q")
	attempt, text, _ = h.read("q", 2, 0)
	assert.Equal(t, 2, attempt)
	assert.Empty(t, text)
}
