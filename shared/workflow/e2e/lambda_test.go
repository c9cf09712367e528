package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

// invocation is one Invoke call the fake Lambda API received, attributed to
// the run it belongs to (every task payload carries the query id), so that
// cases running at the same time keep separate counts.
type invocation struct {
	Function string // short name: prepare, map, reduce
	QueryID  string
	Batch    int // the map batch index; -1 for prepare and reduce
	// Task is the payload's task ("" for the function's own step); Round
	// and Group name a reduce round's group (Group -1 outside one), and
	// RunID the run the payload names.
	Task  string
	Round int
	Group int
	RunID string
	// N is the 1-based number of this invoke among those of the same
	// function and batch (or reduce task, round and group) of the same
	// run: 2 is the state machine's retry.
	N int
}

// lambdaReply replaces a handler's answer: the raw HTTP response the Invoke
// API gives (a throttle, a service error, a function error of any shape).
type lambdaReply struct {
	Status    int
	ErrorType string // x-amzn-ErrorType of a service error
	Body      string
	// FunctionError is X-Amz-Function-Error (Unhandled) on an HTTP 200.
	FunctionError string
}

// throttle is the Invoke API's answer when the account's concurrency is
// used up: a service error, not a function error, so Step Functions names
// it Lambda.TooManyRequestsException.
func throttle() *lambdaReply {
	return &lambdaReply{
		Status:    http.StatusTooManyRequests,
		ErrorType: "TooManyRequestsException",
		Body:      `{"Reason":"ReservedFunctionConcurrentInvocationLimitExceeded","Type":"User","message":"Rate Exceeded."}`,
	}
}

// run is what the fake knows about one run: its fault plan and its counts.
type run struct {
	// fault, when set, may replace the handler's answer to an invocation.
	fault func(inv invocation) *lambdaReply
	// model scripts the Converse endpoint for this run's calls.
	model func(call modelCall) modeltest.ConverseReply
	// after, when set, runs once the handler has answered an invocation
	// (not a faulted one), before the state machine hears the answer.
	after func(inv invocation, errorType string)

	mu        sync.Mutex
	invokes   map[string]int      // by function
	byBatch   map[int]int         // map invokes by batch index
	replies   map[string]int      // answers with X-Amz-Function-Error, by function
	nth       map[string]int      // function/batch -> invokes so far
	inFlight  int                 // map invokes running now
	maxFlight int                 // most map invokes running at once
	models    map[int]int         // model calls by batch index (-1: reduce)
	errors    map[string][]string // errorType of function errors, by function
	tasks     map[string]int      // invokes by function/task, for payloads that name a task
}

func newRun() *run {
	return &run{
		invokes: map[string]int{}, byBatch: map[int]int{}, replies: map[string]int{},
		nth: map[string]int{}, models: map[int]int{}, errors: map[string][]string{}, tasks: map[string]int{},
	}
}

func (r *run) count(fn string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.invokes[fn]
}

func (r *run) batchCounts() map[int]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[int]int, len(r.byBatch))
	for k, v := range r.byBatch {
		out[k] = v
	}
	return out
}

// fakeLambda serves the Lambda Invoke API on loopback for moto's Step
// Functions interpreter, which sends every Lambda task to
// http://localhost:$MOTO_PORT (moto/stepfunctions/parser/asl/utils/
// boto_client.py). Each function runs its real handler through
// lambda.Handler.Invoke, the JSON path production uses; a returned error
// is reported as Lambda reports it, so Retry and Catch match the errorType
// aws-lambda-go would send.
type fakeLambda struct {
	t testing.TB
	// timeout is the function timeout: handlers get a context with this
	// deadline, as in Lambda, so their margin logic runs.
	timeout time.Duration

	mu       sync.Mutex
	handlers map[string]lambda.Handler // by short function name
	runs     map[string]*run
	unknown  []string // invokes no registered run claimed
	// dynamodb forwards the state machine's DynamoDB service integrations
	// (RecordFailure), which moto also sends to $MOTO_PORT, to moto itself.
	dynamodb http.Handler
	// s3 forwards the ItemReader's GetObject to moto.
	s3 http.Handler
}

// tablesRegion is where the tables live, whatever region a state machine
// runs in (see regions).
const tablesRegion = region

var credentialRegion = regexp.MustCompile(`(Credential=[^/]+/[0-9]{8}/)[^/]+(/dynamodb/)`)

// forwardToMoto makes the fake pass DynamoDB calls on to moto at motoURL,
// in the tables' region: moto signs each integration's call for the state
// machine's region, and reads the region back from the credential scope
// (it checks no signature). S3 calls (the Distributed Map's ItemReader)
// go to moto as they are: buckets are not regional there.
func (f *fakeLambda) forwardToMoto(motoURL *url.URL) {
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(motoURL)
		r.Out.Header.Set("Authorization", credentialRegion.ReplaceAllString(r.In.Header.Get("Authorization"), "${1}"+tablesRegion+"${2}"))
	}}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dynamodb = proxy
	f.s3 = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(motoURL) }}
}

// setHandlers installs the functions; the handlers need the store, which
// needs moto, which needs this server's port first.
func (f *fakeLambda) setHandlers(h map[string]lambda.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers = h
}

func newFakeLambda(t testing.TB) (*fakeLambda, *httptest.Server) {
	f := &fakeLambda{t: t, timeout: 30 * time.Second, runs: map[string]*run{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2015-03-31/functions/{name}/invocations", f.invoke)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		ddb, s3 := f.dynamodb, f.s3
		f.mu.Unlock()
		if ddb != nil && strings.HasPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_") {
			ddb.ServeHTTP(w, r)
			return
		}
		if s3 != nil && strings.Contains(r.Header.Get("Authorization"), "/s3/aws4_request") {
			s3.ServeHTTP(w, r)
			return
		}
		// Anything else moto sends here is a call this fake does not speak:
		// fail loudly rather than let the state machine see a 404.
		t.Errorf("fake Lambda: unexpected %s %s", r.Method, r.URL.Path)
		serviceError(w, http.StatusNotFound, "ResourceNotFoundException", "no such route")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

// register makes the fake attribute the invocations of queryID to r.
func (f *fakeLambda) register(queryID string, r *run) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs[queryID] = r
}

func (f *fakeLambda) lookup(queryID string) *run {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[queryID]
}

// shortName is the function name of an Invoke path parameter, which moto
// sends as given in the ASL: a name, a full ARN or a partial one, maybe
// with a :qualifier.
func shortName(name string) string {
	if i := strings.Index(name, ":function:"); i >= 0 {
		name = name[i+len(":function:"):]
	}
	name, _, _ = strings.Cut(name, ":")
	return name
}

// payloadIDs reads which run, batch and reduce group a task payload
// belongs to; it knows only the keys of shared/workflow's task payloads.
func payloadIDs(payload []byte) (queryID string, inv invocation) {
	var p struct {
		QueryID       string `json:"queryId"`
		RunID         string `json:"runId"`
		BatchIndex    *int   `json:"batchIndex"`
		GroupIndex    *int   `json:"groupIndex"`
		Task          string `json:"task"`
		Round         int    `json:"round"`
		ExecutionName string `json:"executionName"`
		Request       struct {
			QueryID string `json:"queryId"`
		} `json:"request"`
	}
	_ = json.Unmarshal(payload, &p)
	queryID = p.QueryID
	if queryID == "" {
		queryID = p.Request.QueryID
	}
	if queryID == "" {
		queryID = p.ExecutionName
	}
	inv = invocation{QueryID: queryID, Batch: -1, Group: -1, Task: p.Task, Round: p.Round, RunID: p.RunID}
	if p.BatchIndex != nil {
		inv.Batch = *p.BatchIndex
	}
	if p.GroupIndex != nil {
		inv.Group = *p.GroupIndex
	}
	return queryID, inv
}

// nthKey is what N counts invokes of: the function and batch, and for a
// reduce round's tasks the task, round and group too.
func nthKey(inv invocation) string {
	if inv.Function == "reduce" && inv.Task != "" {
		return fmt.Sprintf("reduce/%s/%d/%d", inv.Task, inv.Round, inv.Group)
	}
	return fmt.Sprintf("%s/%d", inv.Function, inv.Batch)
}

func (f *fakeLambda) invoke(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-amzn-RequestId", requestID())
	name := shortName(r.PathValue("name"))
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		serviceError(w, http.StatusBadRequest, "InvalidRequestContentException", err.Error())
		return
	}
	f.mu.Lock()
	h, ok := f.handlers[name]
	f.mu.Unlock()
	if !ok {
		serviceError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+name)
		return
	}
	queryID, inv := payloadIDs(payload)
	inv.Function = name
	rn := f.lookup(queryID)
	if rn == nil {
		f.mu.Lock()
		f.unknown = append(f.unknown, name+" "+string(payload))
		f.mu.Unlock()
		rn = newRun() // still answer, so the execution ends and the test reports it
	}

	rn.mu.Lock()
	key := nthKey(inv)
	rn.nth[key]++
	inv.N = rn.nth[key]
	rn.invokes[name]++
	if inv.Task != "" {
		rn.tasks[name+"/"+inv.Task]++
	}
	if name == "map" {
		rn.byBatch[inv.Batch]++
		rn.inFlight++
		rn.maxFlight = max(rn.maxFlight, rn.inFlight)
	}
	rn.mu.Unlock()
	defer func() {
		if name == "map" {
			rn.mu.Lock()
			rn.inFlight--
			rn.mu.Unlock()
		}
	}()

	if rn.fault != nil {
		if rep := rn.fault(inv); rep != nil {
			writeReply(w, rep)
			return
		}
	}

	ctx, cancel := context.WithTimeout(withInvocation(r.Context(), inv), f.timeout)
	defer cancel()
	out, err := h.Invoke(ctx, payload)
	if rn.after != nil {
		typ := ""
		if err != nil {
			typ = errorType(err)
		}
		rn.after(inv, typ)
	}
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		typ := errorType(err)
		rn.mu.Lock()
		rn.replies[name]++
		rn.errors[name] = append(rn.errors[name], typ)
		rn.mu.Unlock()
		body, _ := json.Marshal(map[string]string{"errorType": typ, "errorMessage": err.Error()})
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		_, _ = w.Write(body)
		return
	}
	_, _ = w.Write(out)
}

// errorType is the errorType aws-lambda-go reports for a returned error:
// the name of its type, or of the type it points to (lambda/errors.go,
// lambdaErrorResponse). Written out here rather than borrowed from
// shared/workflow so that the test checks the workflow's names against the
// runtime's rule, not against itself.
func errorType(err error) string {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		return t.Elem().Name()
	}
	return t.Name()
}

func writeReply(w http.ResponseWriter, rep *lambdaReply) {
	w.Header().Set("Content-Type", "application/json")
	if rep.ErrorType != "" {
		w.Header().Set("x-amzn-ErrorType", rep.ErrorType)
	}
	if rep.FunctionError != "" {
		w.Header().Set("X-Amz-Function-Error", rep.FunctionError)
	}
	w.WriteHeader(rep.Status)
	_, _ = io.WriteString(w, rep.Body)
}

// serviceError is an Invoke API error (not a function error): the status,
// x-amzn-ErrorType and a JSON message, as botocore parses it.
func serviceError(w http.ResponseWriter, status int, typ, msg string) {
	body, _ := json.Marshal(map[string]string{"message": msg})
	writeReply(w, &lambdaReply{Status: status, ErrorType: typ, Body: string(body)})
}

func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	s := hex.EncodeToString(b[:])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// invocationKey carries the invocation a handler runs for down to the
// Bedrock client's transport, which tags the Converse request with it: the
// fake model then knows which run, batch and attempt it answers without
// parsing prompts.
type invocationKey struct{}

func withInvocation(ctx context.Context, inv invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

func invocationOf(ctx context.Context) (invocation, bool) {
	inv, ok := ctx.Value(invocationKey{}).(invocation)
	return inv, ok
}
