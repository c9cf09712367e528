package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// modelCall is one Converse request, attributed through the headers the
// tagging transport adds.
type modelCall struct {
	invocation
	// Try is the 1-based number of this HTTP request within the one
	// invocation: above 1 it is the SDK's own retry, not the state machine's.
	Try int
}

// converseReply is one canned answer of the fake Converse endpoint.
type converseReply struct {
	Status    int
	ErrorType string // X-Amzn-ErrorType of an error
	Text      string // the assistant's text of a success
	Stop      string // stopReason; end_turn when empty
}

func modelText(text string) converseReply { return converseReply{Status: http.StatusOK, Text: text} }

func mapAnswer(answer string, usefulness float64) converseReply {
	b, _ := json.Marshal(map[string]any{"answer": answer, "usefulness": usefulness})
	return modelText(string(b))
}

func reduceAnswer(answer string) converseReply {
	b, _ := json.Marshal(map[string]any{"answer": answer})
	return modelText(string(b))
}

// modelError is a Bedrock error the SDK does not retry (a 400), so one
// invocation makes one failed call and the state machine owns the retry.
func modelError() converseReply {
	return converseReply{Status: http.StatusBadRequest, ErrorType: "ValidationException"}
}

// modelThrottle is a Bedrock throttle, which the SDK retries inside the
// invocation (bedrock.NewRetryer).
func modelThrottle() converseReply {
	return converseReply{Status: http.StatusTooManyRequests, ErrorType: "ThrottlingException"}
}

// healthyModel answers every map batch with a useful answer and reduce with
// a synthesis: the script of a run without faults.
func healthyModel(call modelCall) converseReply {
	if call.Function == "reduce" {
		return reduceAnswer("Synthesis of the selected answers.")
	}
	return mapAnswer(fmt.Sprintf("Batch %d finds a trend.", call.Batch), float64(50+call.Batch))
}

// fakeBedrock speaks Converse (POST /model/{modelId}/converse) and answers
// each call with the script of the run it belongs to.
type fakeBedrock struct {
	lambda *fakeLambda

	mu    sync.Mutex
	tries map[string]int // HTTP requests per invocation
}

// The headers the tagging transport sets from the invocation in the
// request's context.
const (
	headerQuery    = "X-E2e-Query"
	headerFunction = "X-E2e-Function"
	headerBatch    = "X-E2e-Batch"
	headerInvoke   = "X-E2e-Invoke"
)

func newFakeBedrock(t testing.TB, l *fakeLambda) *httptest.Server {
	f := &fakeBedrock{lambda: l, tries: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /model/{modelId}/converse", f.converse)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake Bedrock: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, "unexpected", http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeBedrock) converse(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	var call modelCall
	call.QueryID = r.Header.Get(headerQuery)
	call.Function = r.Header.Get(headerFunction)
	call.Batch, _ = strconv.Atoi(r.Header.Get(headerBatch))
	call.N, _ = strconv.Atoi(r.Header.Get(headerInvoke))

	script := healthyModel
	if rn := f.lambda.lookup(call.QueryID); rn != nil {
		key := call.Batch
		if call.Function == "reduce" {
			key = -1
		}
		rn.mu.Lock()
		rn.models[key]++
		rn.mu.Unlock()
		if rn.model != nil {
			script = rn.model
		}
	}
	f.mu.Lock()
	key := fmt.Sprintf("%s/%s/%d/%d", call.QueryID, call.Function, call.Batch, call.N)
	f.tries[key]++
	call.Try = f.tries[key]
	f.mu.Unlock()
	rep := script(call)

	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-RequestId", requestID())
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
	body, _ := json.Marshal(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": rep.Text}}}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
		"metrics":    map[string]any{"latencyMs": 1},
	})
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// tagging adds the invocation of the request's context as headers.
type tagging struct{ next http.RoundTripper }

func (t tagging) RoundTrip(r *http.Request) (*http.Response, error) {
	inv, ok := invocationOf(r.Context())
	if ok {
		r = r.Clone(r.Context())
		r.Header.Set(headerQuery, inv.QueryID)
		r.Header.Set(headerFunction, inv.Function)
		r.Header.Set(headerBatch, strconv.Itoa(inv.Batch))
		r.Header.Set(headerInvoke, strconv.Itoa(inv.N))
	}
	return t.next.RoundTrip(r)
}
