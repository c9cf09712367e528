package localserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// heartbeat is how often an idle event stream sends a comment, so that a
// page that went away is noticed (the write fails) while a run maps.
const heartbeat = 15 * time.Second

// endedAnswerKept is how long the hub keeps a run's answer once the run
// has ended, for the streams still sending it.
const endedAnswerKept = time.Minute

// answerHub holds the final answer of each run in flight as its reduce
// model writes it (globalsearch.AnswerSink), for the event streams that
// send it to the page (docs/contract.md#answer-stream).
type answerHub struct {
	mu      sync.Mutex
	answers map[string]*liveAnswer
	// changed is closed, and replaced, at every change of any answer: the
	// streams of one server are a handful of tabs, so each wakes at every
	// change and reads its own.
	changed chan struct{}
}

type liveAnswer struct {
	attempt int
	text    []byte
}

func newAnswerHub() *answerHub {
	return &answerHub{answers: map[string]*liveAnswer{}, changed: make(chan struct{})}
}

// AnswerText records a piece of queryID's answer: a newer attempt starts
// the text anew, and a piece of an older one is late and dropped.
func (h *answerHub) AnswerText(queryID string, attempt int, text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.answers[queryID]
	if a == nil {
		a = &liveAnswer{}
		h.answers[queryID] = a
	}
	switch {
	case attempt < a.attempt:
		return
	case attempt > a.attempt:
		a.attempt, a.text = attempt, a.text[:0]
	}
	a.text = append(a.text, text...)
	h.broadcast()
}

// forget drops queryID's answer once its run has ended: the result holds
// it from then on.
func (h *answerHub) forget(queryID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.answers, queryID)
	h.broadcast()
}

func (h *answerHub) broadcast() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// read is queryID's attempt and its text from byte offset from (all of it
// when the attempt is not attempt), and the channel closed at the next
// change.
func (h *answerHub) read(queryID string, attempt, from int) (int, string, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.answers[queryID]
	if a == nil {
		return attempt, "", h.changed
	}
	if a.attempt != attempt {
		from = 0
	}
	return a.attempt, string(a.text[min(from, len(a.text)):]), h.changed
}

// hubStarter is the local starter, which forgets a run's live answer when
// the run ends.
type hubStarter struct {
	starter interface {
		api.Starter
		Done(name string) <-chan struct{}
	}
	hub *answerHub
}

func (h hubStarter) Start(ctx context.Context, name string, input []byte) error {
	if err := h.starter.Start(ctx, name, input); err != nil {
		return err
	}
	if done := h.starter.Done(name); done != nil {
		go func() {
			<-done
			// Kept a while after the run ends, so that a stream woken by
			// the end still reads the answer's last pieces before it says
			// `end`.
			time.AfterFunc(endedAnswerKept, func() { h.hub.forget(name) })
		}()
	}
	return nil
}

func (h hubStarter) Execution(ctx context.Context, name string) (string, string, error) {
	return h.starter.Execution(ctx, name)
}

func (h hubStarter) Stop(ctx context.Context, name, cause string) error {
	return h.starter.Stop(ctx, name, cause)
}

// AnswerEvent is the data of an `answer` event: text continues the
// attempt's answer at byte offset Offset; an event of a new attempt has
// offset 0 and voids what the page shows (docs/contract.md#answer-stream).
type AnswerEvent struct {
	Attempt int    `json:"attempt"`
	Offset  int    `json:"offset"`
	Text    string `json:"text"`
}

// events is `GET /namespaces/{namespace}/queries/{id}/events`: the final
// answer of the query's run as server-sent events while the reduce model
// writes it, then `end` once the run has ended (docs/contract.md#answer-stream).
// It is a GET, so the guard's Host rule holds it to this machine's pages
// and a page on another origin cannot read it (no CORS header); the
// server sets no write timeout, so the stream lasts as long as the run.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	ns, id := r.PathValue("namespace"), r.PathValue("id")
	if err := s.checkQuery(r.Context(), ns, id); err != nil {
		api.HTTP(func(ctx context.Context, _ events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return s.handler.Fail(ctx, id, err), nil
		}).ServeHTTP(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	done := s.starter.Done(id)
	if done == nil {
		// Recorded but never started here: nothing will stream.
		sendEvent(w, rc, "end", map[string]string{"queryId": id})
		return
	}
	ticker := time.NewTicker(s.cfg.Heartbeat)
	defer ticker.Stop()
	attempt, offset := 0, 0
	for {
		cur, text, changed := s.answers.read(id, attempt, offset)
		if cur != attempt {
			attempt, offset = cur, 0
		}
		if text != "" {
			if sendEvent(w, rc, "answer", AnswerEvent{Attempt: attempt, Offset: offset, Text: text}) != nil {
				return
			}
			offset += len(text)
		}
		select {
		case <-changed:
		case <-ticker.C:
			if _, err := fmt.Fprint(w, ": still running\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-done:
			// The end and the last pieces may wake the stream together:
			// what the model wrote goes out before `end`.
			cur, text, _ := s.answers.read(id, attempt, offset)
			if cur != attempt {
				attempt, offset = cur, 0
			}
			if text != "" {
				if sendEvent(w, rc, "answer", AnswerEvent{Attempt: attempt, Offset: offset, Text: text}) != nil {
					return
				}
			}
			sendEvent(w, rc, "end", map[string]string{"queryId": id})
			return
		case <-r.Context().Done():
			return
		case <-s.stopping:
			return
		}
	}
}

// checkQuery is nil when namespace ns holds query id, else the error the
// API's GET answers: another namespace's query reads as missing.
func (s *Server) checkQuery(ctx context.Context, ns, id string) error {
	if !globalsearch.ValidNamespace(ns) {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "the path's namespace %s", globalsearch.NamespaceRule)
	}
	p, err := s.runs.Request(ctx, id)
	if err == nil && p.Namespace == ns {
		return nil
	}
	if err != nil && !errors.Is(err, globalsearch.ErrNotFound) {
		return err
	}
	return globalsearch.Errorf(globalsearch.KindNotFound, "no query with id %s in namespace %s", id, ns)
}

// sendEvent writes one server-sent event of JSON data and flushes it.
func sendEvent(w http.ResponseWriter, rc *http.ResponseController, name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return err
	}
	return rc.Flush()
}
