// Package api is the HTTP edge of the deployed search: an API Gateway HTTP
// API (payload format 2.0) handler for `POST /namespaces/{namespace}/queries`
// (validate, record the request, start the state machine named by the query
// id, answer 202), `GET /namespaces/{namespace}/queries/{id}` (status and
// result from the runs table, and the map progress of a running query) and
// `DELETE` on the same route (stop the execution, record the query as
// cancelled), docs/contract.md#tables, docs/contract.md#entry-points,
// docs/contract.md#cancel. The namespace is in the path
// so that access to one is an IAM policy on its routes: a body namespace
// that differs is invalid input, and a run of another namespace reads as
// not found.
//
// Idempotency: the query id comes from the Idempotency-Key header, else the
// body's queryId, else a fresh one. A repeated id returns the same query and
// starts nothing new; a repeated id with a different request is 409.
// Errors are JSON {"error": code, "message": text}; 5xx messages are generic
// and the cause goes to the log.
package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Starter starts the search workflow of a query (execution.Starter, or a
// local twin).
type Starter interface {
	// Start starts an execution named name with input; repeating it with
	// the same input is success.
	Start(ctx context.Context, name string, input []byte) error
	// Execution reports the status of the execution named name ("" when
	// there is none) and, for one that failed, why.
	Execution(ctx context.Context, name string) (status, failure string, err error)
	// Stop stops the execution named name with cause; stopping an
	// execution that already ended, or never started, is not an error.
	Stop(ctx context.Context, name, cause string) error
}

// Runs is what the API reads and writes of the runs store.
type Runs interface {
	globalsearch.Requests
	globalsearch.Results
	globalsearch.Progress
	globalsearch.Cancels
}

// Handler serves the HTTP API.
type Handler struct {
	Runs     Runs
	Starter  Starter
	Defaults globalsearch.Defaults
	// Prices are the deployment's (the engine's), nil when it sets none:
	// a request's maxCostUsd then cannot be held and is refused here
	// (docs/contract.md#cost-ceiling), as prepare would refuse it.
	Prices *globalsearch.Prices
	Logger *slog.Logger
	// Now stamps a cancelled result; nil means time.Now.
	Now func() time.Time
}

// IdempotencyKeyHeader carries a client-chosen query id.
const IdempotencyKeyHeader = "Idempotency-Key"

// Accepted is the answer to a start: where to poll for the result.
type Accepted struct {
	QueryID  string              `json:"queryId"`
	Status   globalsearch.Status `json:"status"`
	Location string              `json:"location"`
}

// Running is the answer of GET for a query with no result yet.
type Running struct {
	QueryID  string              `json:"queryId"`
	Status   globalsearch.Status `json:"status"`
	Error    string              `json:"error,omitempty"`
	Progress *Progress           `json:"progress,omitempty"`
}

// Progress is how far a running query has got (docs/contract.md#progress);
// it is absent until the query has a plan.
type Progress struct {
	Map globalsearch.MapProgress `json:"map"`
}

// Error is every error body.
type Error struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// Handle routes one request. It never returns an error: API Gateway would
// turn one into a bare 500.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	method := req.RequestContext.HTTP.Method
	path := req.RawPath
	if path == "" {
		path = req.RequestContext.HTTP.Path
	}
	path = strings.TrimSuffix(path, "/")
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if (len(segs) == 3 || len(segs) == 4) && segs[0] == "namespaces" && segs[2] == "queries" {
		ns := pathParameter(req, "namespace", segs[1])
		if len(segs) == 3 {
			if method != http.MethodPost {
				return methodNotAllowed(http.MethodPost), nil
			}
			if resp, ok := badNamespace(ns); !ok {
				return resp, nil
			}
			return h.post(ctx, ns, req), nil
		}
		if method != http.MethodGet && method != http.MethodDelete {
			return methodNotAllowed(http.MethodGet + ", " + http.MethodDelete), nil
		}
		if resp, ok := badNamespace(ns); !ok {
			return resp, nil
		}
		if method == http.MethodDelete {
			return h.cancel(ctx, ns, pathParameter(req, "id", segs[3])), nil
		}
		return h.get(ctx, ns, pathParameter(req, "id", segs[3])), nil
	}
	return reply(http.StatusNotFound, Error{"not_found", "no route for " + method + " " + path}), nil
}

// pathParameter prefers API Gateway's decoded parameter; local events may
// carry only the path.
func pathParameter(req events.APIGatewayV2HTTPRequest, name, fromPath string) string {
	if v := req.PathParameters[name]; v != "" {
		return v
	}
	return fromPath
}

// badNamespace refuses a path namespace that no run can have, before
// anything is read.
func badNamespace(ns string) (events.APIGatewayV2HTTPResponse, bool) {
	if globalsearch.ValidNamespace(ns) {
		return events.APIGatewayV2HTTPResponse{}, true
	}
	return reply(http.StatusBadRequest, Error{"invalid_input", "the path's namespace " + globalsearch.NamespaceRule}), false
}

// location is where a query's status and result are read.
func location(ns, id string) string { return "/namespaces/" + ns + "/queries/" + id }

// MaxBodyBytes is the largest request body POST reads (docs/contract.md#body-cap). The
// largest valid request, its 4,000-code-point query and its responseType
// written entirely as \u escapes of surrogate pairs (12 bytes a code
// point), is under 50 KB; API Gateway would pass up to 10 MB, which the
// parse need never see.
const MaxBodyBytes = 64 << 10

func (h *Handler) post(ctx context.Context, ns string, req events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
	// Validate before spending: nothing is stored or started for a bad
	// request.
	p, err := ReadRequest(req, h.Defaults, ns)
	if err != nil {
		return h.fail(ctx, "", err)
	}
	if err := globalsearch.NeedPrices(p, h.Prices); err != nil {
		return h.fail(ctx, "", err)
	}
	// The execution is named by the query id (start), so that is the
	// owner of the id's result (docs/contract.md#query-ids).
	// The same claim as prepare's (docs/contract.md#query-ids): a seed this
	// parse generated matches the stored one, and a different request is
	// a conflict.
	stored, created, err := globalsearch.ClaimRequest(ctx, h.Runs, p, p.QueryID)
	if err != nil {
		return h.fail(ctx, p.QueryID, err)
	}
	accepted := Accepted{QueryID: stored.QueryID, Status: globalsearch.StatusRunning, Location: location(ns, stored.QueryID)}
	if !created {
		return h.repeat(ctx, stored, accepted)
	}
	if err := h.start(ctx, stored); err != nil {
		return h.fail(ctx, stored.QueryID, err)
	}
	h.logger().LogAttrs(ctx, slog.LevelInfo, "query started", slog.String("queryId", stored.QueryID), slog.String("step", "api"), slog.String("status", "started"))
	return withLocation(reply(http.StatusAccepted, accepted), accepted.Location)
}

// repeat answers a start of a query id that exists. It starts the workflow
// only when no execution exists, which heals a first call whose
// StartExecution failed after the request was recorded.
func (h *Handler) repeat(ctx context.Context, p globalsearch.Params, accepted Accepted) events.APIGatewayV2HTTPResponse {
	res, err := h.Runs.Result(ctx, p.QueryID)
	switch {
	case err == nil:
		accepted.Status = res.Status
		return withLocation(reply(http.StatusOK, accepted), accepted.Location)
	case !errors.Is(err, globalsearch.ErrNotFound):
		return h.fail(ctx, p.QueryID, err)
	}
	status, _, err := h.Starter.Execution(ctx, p.QueryID)
	if err != nil {
		return h.fail(ctx, p.QueryID, err)
	}
	if status == "" {
		if err := h.start(ctx, p); err != nil {
			return h.fail(ctx, p.QueryID, err)
		}
		return withLocation(reply(http.StatusAccepted, accepted), accepted.Location)
	}
	return withLocation(reply(http.StatusOK, accepted), accepted.Location)
}

// start passes the stored request, every default resolved and the seed
// fixed, as the execution's input: prepare parses it again to the same
// Params, and a repeated start has the same input.
func (h *Handler) start(ctx context.Context, p globalsearch.Params) error {
	input, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return h.Starter.Start(ctx, p.QueryID, input)
}

// query is what the runs store holds of a query id in a namespace.
type query struct {
	result    globalsearch.Result
	hasResult bool
	request   globalsearch.Params // read when there is no result with a namespace
}

// lookup reads a query id's result, and its request when the result does
// not say whose it is. ok is false when the query is not the namespace's
// (resp is then 404, the same answer whether the id is unknown or
// another namespace's: a caller granted one namespace learns nothing of
// the others) or a read failed (resp says so).
func (h *Handler) lookup(ctx context.Context, ns, id string) (q query, resp events.APIGatewayV2HTTPResponse, ok bool) {
	res, err := h.Runs.Result(ctx, id)
	q.result, q.hasResult = res, err == nil
	if err != nil && !errors.Is(err, globalsearch.ErrNotFound) {
		return q, h.fail(ctx, id, err), false
	}
	owner := res.Namespace
	if owner == "" {
		// No result yet, or one the state machine wrote itself
		// (RecordFailure), which holds no namespace: the stored request
		// says whose run it is.
		stored, err := h.Runs.Request(ctx, id)
		switch {
		case err == nil:
			owner, q.request = stored.Namespace, stored
		case errors.Is(err, globalsearch.ErrNotFound) || globalsearch.KindOf(err) == globalsearch.KindInvalidInput:
		default:
			return q, h.fail(ctx, id, err), false
		}
	}
	// A run whose namespace is unknown is nobody's to read.
	if owner != ns {
		return q, reply(http.StatusNotFound, Error{"not_found", "no query with id " + id + " in namespace " + ns}), false
	}
	return q, events.APIGatewayV2HTTPResponse{}, true
}

func (h *Handler) get(ctx context.Context, ns, id string) events.APIGatewayV2HTTPResponse {
	q, resp, ok := h.lookup(ctx, ns, id)
	if !ok {
		return resp
	}
	if q.hasResult {
		return reply(http.StatusOK, NewResultReply(q.result))
	}
	// No result yet: normally still running. The state machine records
	// every failure it sees (RecordFailure), but an execution can still end
	// without one: aborted or timed out as a whole, or its recording write
	// refused. Such a run would otherwise read as running until its TTL.
	status, failure, err := h.Starter.Execution(ctx, id)
	if err != nil {
		return h.fail(ctx, id, err)
	}
	if ended(status) {
		msg := "the execution ended " + status + " before it saved a result"
		if failure != "" {
			msg += ": " + failure
		}
		return reply(http.StatusOK, Running{QueryID: id, Status: globalsearch.StatusFailed, Error: msg})
	}
	running := Running{QueryID: id, Status: globalsearch.StatusRunning}
	// One small read of the plan and two counts (docs/contract.md#progress);
	// before the plan exists there is no progress to report.
	progress, err := h.Runs.MapProgress(ctx, id)
	switch {
	case err == nil:
		running.Progress = &Progress{Map: progress}
	case !errors.Is(err, globalsearch.ErrNotFound):
		return h.fail(ctx, id, err)
	}
	return reply(http.StatusOK, running)
}

// ended reports whether an execution status is one that ended without a
// result the runs table holds.
func ended(status string) bool {
	switch status {
	case "FAILED", "TIMED_OUT", "ABORTED":
		return true
	}
	return false
}

// fail maps an error to its status: the error-code table of the edge.
func (h *Handler) fail(ctx context.Context, queryID string, err error) events.APIGatewayV2HTTPResponse {
	var tooBig *BodyTooLargeError
	if errors.As(err, &tooBig) {
		return reply(http.StatusRequestEntityTooLarge, Error{"too_large", err.Error()})
	}
	switch globalsearch.KindOf(err) {
	case globalsearch.KindInvalidInput:
		return reply(http.StatusBadRequest, Error{"invalid_input", err.Error()})
	case globalsearch.KindNotFound:
		return reply(http.StatusNotFound, Error{"not_found", err.Error()})
	case globalsearch.KindConflict:
		return reply(http.StatusConflict, Error{"conflict", err.Error()})
	case globalsearch.KindThrottled:
		h.logger().LogAttrs(ctx, slog.LevelWarn, "throttled", slog.String("queryId", queryID), slog.String("step", "api"), slog.String("error", err.Error()))
		resp := reply(http.StatusServiceUnavailable, Error{"throttled", "the service is busy; retry with the same Idempotency-Key"})
		resp.Headers["Retry-After"] = "2"
		return resp
	}
	h.logger().LogAttrs(ctx, slog.LevelError, "request failed", slog.String("queryId", queryID), slog.String("step", "api"), slog.String("error", err.Error()))
	return reply(http.StatusInternalServerError, Error{"internal", "internal error; retry with the same Idempotency-Key"})
}

func (h *Handler) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.New(slog.NewJSONHandler(io.Discard, nil))
}

// BodyTooLargeError is a request body over MaxBodyBytes, refused (413
// too_large) before it is decoded or parsed (docs/contract.md#body-cap).
type BodyTooLargeError struct {
	Bytes int
	// Base64 is set when Bytes counts the body as API Gateway encoded it.
	Base64 bool
}

func (e *BodyTooLargeError) Error() string {
	what := "request body is " + strconv.Itoa(e.Bytes) + " bytes"
	if e.Base64 {
		what += " of base64"
	}
	return what + "; the API reads at most " + strconv.Itoa(MaxBodyBytes) + " bytes (64 KiB), far more than the largest valid request"
}

// ReadRequest is the body of a POST to a route under namespace ns, read as
// every such route reads it (the API's queries and a local server's
// plans): at most MaxBodyBytes, else a *BodyTooLargeError; base64 decoded
// when API Gateway encoded it; parsed with defaults, the path's namespace
// the default. The Idempotency-Key header is the query id unless the body
// names one, and the two must agree. A body that names another namespace is
// refused: the caller's IAM grant covers the path only
// (docs/contract.md#entry-points).
func ReadRequest(req events.APIGatewayV2HTTPRequest, defaults globalsearch.Defaults, ns string) (globalsearch.Params, error) {
	body, err := readBody(req)
	if err != nil {
		return globalsearch.Params{}, err
	}
	key := header(req.Headers, IdempotencyKeyHeader)
	defaults.Namespace = ns
	p, err := globalsearch.ParseRequestWithID(body, defaults, key)
	if err != nil {
		return globalsearch.Params{}, err
	}
	if key != "" && p.QueryID != key {
		return globalsearch.Params{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "queryId and the Idempotency-Key header differ")
	}
	if p.Namespace != ns {
		return globalsearch.Params{}, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"the body's namespace %q differs from the path's %q", p.Namespace, ns)
	}
	return p, nil
}

// readBody is req's body, its size checked before it is decoded too: base64
// is 4 bytes for every 3, and a body need not be decoded to be refused.
func readBody(req events.APIGatewayV2HTTPRequest) ([]byte, error) {
	limit := MaxBodyBytes
	if req.IsBase64Encoded {
		limit = base64.StdEncoding.EncodedLen(MaxBodyBytes)
	}
	if len(req.Body) > limit {
		return nil, &BodyTooLargeError{Bytes: len(req.Body), Base64: req.IsBase64Encoded}
	}
	if !req.IsBase64Encoded {
		return []byte(req.Body), nil
	}
	body, err := base64.StdEncoding.DecodeString(req.Body)
	if err != nil {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "request body is not valid base64")
	}
	if len(body) > MaxBodyBytes {
		return nil, &BodyTooLargeError{Bytes: len(body)}
	}
	return body, nil
}

func methodNotAllowed(allow string) events.APIGatewayV2HTTPResponse {
	resp := reply(http.StatusMethodNotAllowed, Error{"method_not_allowed", "use " + allow})
	resp.Headers["Allow"] = allow
	return resp
}

func reply(status int, body any) events.APIGatewayV2HTTPResponse {
	data, err := json.Marshal(body)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"internal","message":"encode response"}`)
	}
	return events.APIGatewayV2HTTPResponse{
		StatusCode: status,
		Headers:    map[string]string{"Content-Type": "application/json"},
		Body:       string(data),
	}
}

func withLocation(resp events.APIGatewayV2HTTPResponse, location string) events.APIGatewayV2HTTPResponse {
	resp.Headers["Location"] = location
	return resp
}

// header finds a header whatever its case (API Gateway lowercases names;
// local events may not).
func header(headers map[string]string, name string) string {
	for k, v := range headers {
		if strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
