package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// modelCall is one Converse request, attributed through the headers the
// tagging transport adds.
type modelCall struct {
	invocation
	// Try is the 1-based number of this HTTP request within the one
	// invocation: above 1 it is the SDK's own retry, not the state machine's.
	Try int
	// Body is the Converse request as JSON, for a script that answers by
	// what the call asks (a rating call's communities).
	Body string
}

// modelText is a successful Converse reply of text.
func modelText(text string) modeltest.ConverseReply { return modeltest.ConverseText(text, 100, 20) }

func mapAnswer(answer string, usefulness float64) modeltest.ConverseReply {
	b, _ := json.Marshal(map[string]any{"answer": answer, "usefulness": usefulness})
	return modelText(string(b))
}

func reduceAnswer(answer string) modeltest.ConverseReply {
	b, _ := json.Marshal(map[string]any{"answer": answer})
	return modelText(string(b))
}

// modelError is a Bedrock error the SDK does not retry (a 400), so one
// invocation makes one failed call and the state machine owns the retry.
func modelError() modeltest.ConverseReply {
	return modeltest.ConverseError(http.StatusBadRequest, "ValidationException")
}

// modelThrottle is a Bedrock throttle, which the SDK retries inside the
// invocation (shared/llm/bedrock's retryer).
func modelThrottle() modeltest.ConverseReply {
	return modeltest.ConverseError(http.StatusTooManyRequests, "ThrottlingException")
}

// healthyModel answers every map batch with a useful answer and reduce with
// a synthesis: the script of a run without faults.
func healthyModel(call modelCall) modeltest.ConverseReply {
	if call.Function == "reduce" {
		return reduceAnswer("Synthesis of the selected answers.")
	}
	return mapAnswer(fmt.Sprintf("Batch %d finds a trend.", call.Batch), float64(50+call.Batch))
}

// fakeBedrock answers each Converse call with the script of the run it
// belongs to.
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
	headerTask     = "X-E2e-Task"
	headerRound    = "X-E2e-Round"
	headerGroup    = "X-E2e-Group"
	headerRun      = "X-E2e-Run"
)

func newFakeBedrock(t testing.TB, l *fakeLambda) *modeltest.ConverseServer {
	f := &fakeBedrock{lambda: l, tries: map[string]int{}}
	return modeltest.NewConverseServer(t, f.reply)
}

func (f *fakeBedrock) reply(c modeltest.ConverseCall) modeltest.ConverseReply {
	var call modelCall
	call.QueryID = c.Header.Get(headerQuery)
	call.Function = c.Header.Get(headerFunction)
	call.Batch, _ = strconv.Atoi(c.Header.Get(headerBatch))
	call.N, _ = strconv.Atoi(c.Header.Get(headerInvoke))
	call.Task, call.RunID = c.Header.Get(headerTask), c.Header.Get(headerRun)
	call.Round, _ = strconv.Atoi(c.Header.Get(headerRound))
	call.Group, _ = strconv.Atoi(c.Header.Get(headerGroup))
	if body, err := json.Marshal(c.Body); err == nil {
		call.Body = string(body)
	}

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
	key := fmt.Sprintf("%s/%s/%d/%d/%s/%d/%d", call.QueryID, call.Function, call.Batch, call.N, call.Task, call.Round, call.Group)
	f.tries[key]++
	call.Try = f.tries[key]
	f.mu.Unlock()
	return script(call)
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
		r.Header.Set(headerTask, inv.Task)
		r.Header.Set(headerRound, strconv.Itoa(inv.Round))
		r.Header.Set(headerGroup, strconv.Itoa(inv.Group))
		r.Header.Set(headerRun, inv.RunID)
	}
	return t.next.RoundTrip(r)
}
