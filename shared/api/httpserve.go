package api

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// HandleFunc is an API Gateway HTTP API (payload format 2.0) handler, as
// Handler.Handle is.
type HandleFunc func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// GatewayMaxBodyBytes is the largest body API Gateway passes to the
// function; it refuses a larger one itself, so the handler never sees it.
const GatewayMaxBodyBytes = 10 << 20

// PathParameters are the route variables a net/http pattern may name and
// the event carries decoded, as API Gateway fills them from its route
// (`/namespaces/{namespace}/queries/{id}`).
var PathParameters = []string{"namespace", "id"}

// HTTP serves handle over net/http the way API Gateway delivers requests to
// the deployed function (docs/contract.md#serve): each request becomes
// the event API Gateway would send, and the function's response becomes
// the HTTP response. An error from handle is API Gateway's bare 500.
func HTTP(handle HandleFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := Event(r)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				WriteResponse(w, reply(http.StatusRequestEntityTooLarge, Error{"too_large",
					"request body is over " + strconv.Itoa(GatewayMaxBodyBytes) + " bytes, the most API Gateway passes on"}))
				return
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				// A local server's bound on a slow body (docs/contract.md#serve-security);
				// API Gateway reads the whole body before the function runs.
				WriteResponse(w, reply(http.StatusRequestTimeout, Error{"timeout", "request body did not arrive in time: " + err.Error()}))
				return
			}
			WriteResponse(w, reply(http.StatusBadRequest, Error{"invalid_input", "read request body: " + err.Error()}))
			return
		}
		resp, err := handle(r.Context(), req)
		if err != nil {
			resp = reply(http.StatusInternalServerError, map[string]string{"message": "Internal Server Error"})
		}
		WriteResponse(w, resp)
	})
}

// Event is r as API Gateway's payload format 2.0 carries it: header names
// lowercased and repeated values joined by commas, cookies apart, the raw
// path and query string, path parameters decoded, and a body that is not
// UTF-8 text base64-encoded.
func Event(r *http.Request) (events.APIGatewayV2HTTPRequest, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, GatewayMaxBodyBytes))
	if err != nil {
		return events.APIGatewayV2HTTPRequest{}, err
	}
	req := events.APIGatewayV2HTTPRequest{
		Version:        "2.0",
		RawPath:        r.URL.EscapedPath(),
		RawQueryString: r.URL.RawQuery,
		Headers:        map[string]string{},
	}
	for name, values := range r.Header {
		name = strings.ToLower(name)
		if name == "cookie" {
			for _, c := range values {
				req.Cookies = append(req.Cookies, strings.Split(c, "; ")...)
			}
			continue
		}
		req.Headers[name] = strings.Join(values, ",")
	}
	if q := r.URL.Query(); len(q) > 0 {
		req.QueryStringParameters = make(map[string]string, len(q))
		for k, v := range q {
			req.QueryStringParameters[k] = strings.Join(v, ",")
		}
	}
	for _, name := range PathParameters {
		if v := r.PathValue(name); v != "" {
			if req.PathParameters == nil {
				req.PathParameters = map[string]string{}
			}
			req.PathParameters[name] = v
		}
	}
	req.RequestContext.HTTP = events.APIGatewayV2HTTPRequestContextHTTPDescription{
		Method: r.Method, Path: r.URL.Path, Protocol: r.Proto, SourceIP: sourceIP(r.RemoteAddr), UserAgent: r.UserAgent(),
	}
	req.RequestContext.Stage = "$default"
	if utf8.Valid(body) {
		req.Body = string(body)
	} else {
		req.Body, req.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return req, nil
}

// sourceIP is the host of a "host:port" remote address.
func sourceIP(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return strings.Trim(addr[:i], "[]")
	}
	return addr
}

// WriteResponse writes resp as API Gateway answers with it.
func WriteResponse(w http.ResponseWriter, resp events.APIGatewayV2HTTPResponse) {
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		decoded, err := base64.StdEncoding.DecodeString(resp.Body)
		if err != nil {
			resp = reply(http.StatusInternalServerError, map[string]string{"message": "Internal Server Error"})
			decoded = []byte(resp.Body)
		}
		body = decoded
	}
	h := w.Header()
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for _, c := range resp.Cookies {
		h.Add("Set-Cookie", c)
	}
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(body)
}

// Reply is a JSON response as every route of the API answers: routes a
// local server adds beside the API's answer in the same form.
func Reply(status int, body any) events.APIGatewayV2HTTPResponse { return reply(status, body) }

// Fail is the response to err by the API's error-code table
// (docs/contract.md#errors), for routes beside the API's own.
func (h *Handler) Fail(ctx context.Context, queryID string, err error) events.APIGatewayV2HTTPResponse {
	return h.fail(ctx, queryID, err)
}
