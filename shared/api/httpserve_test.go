package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// recorder is a HandleFunc that keeps the event it got and answers resp.
type recorder struct {
	got  events.APIGatewayV2HTTPRequest
	resp events.APIGatewayV2HTTPResponse
	err  error
}

func (r *recorder) handle(_ context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	r.got = req
	return r.resp, r.err
}

// serveOnce sends req through api.HTTP on a mux with the API's routes.
func serveOnce(t *testing.T, rec *recorder, req *http.Request) *http.Response {
	t.Helper()
	mux := http.NewServeMux()
	h := api.HTTP(rec.handle)
	mux.Handle("/namespaces/{namespace}/queries/{id}", h)
	mux.Handle("/", h)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	return w.Result()
}

func TestEventIsWhatAPIGatewaySends(t *testing.T) {
	tests := []struct {
		name   string
		req    func() *http.Request
		expect func(t *testing.T, got events.APIGatewayV2HTTPRequest)
	}{
		{"route, headers and body", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/namespaces/sample/queries?x=1&x=2", strings.NewReader(`{"query":"q"}`))
			r.Header.Add("Idempotency-Key", "k-1")
			r.Header.Add("Accept", "a")
			r.Header.Add("Accept", "b")
			r.Header.Add("Cookie", "c1=1; c2=2")
			return r
		}, func(t *testing.T, got events.APIGatewayV2HTTPRequest) {
			assert.Equal(t, "2.0", got.Version)
			assert.Equal(t, http.MethodPost, got.RequestContext.HTTP.Method)
			assert.Equal(t, "/namespaces/sample/queries", got.RawPath)
			assert.Equal(t, "x=1&x=2", got.RawQueryString)
			assert.Equal(t, map[string]string{"x": "1,2"}, got.QueryStringParameters)
			assert.Equal(t, "k-1", got.Headers["idempotency-key"])
			assert.Equal(t, "a,b", got.Headers["accept"])
			assert.Equal(t, []string{"c1=1", "c2=2"}, got.Cookies)
			assert.NotContains(t, got.Headers, "cookie")
			assert.Equal(t, `{"query":"q"}`, got.Body)
			assert.False(t, got.IsBase64Encoded)
			assert.Nil(t, got.PathParameters, "no route variable on this pattern")
		}},
		{"path parameters decoded, raw path kept", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/namespaces/sample/queries/a%20b", nil)
		}, func(t *testing.T, got events.APIGatewayV2HTTPRequest) {
			assert.Equal(t, "/namespaces/sample/queries/a%20b", got.RawPath)
			assert.Equal(t, "/namespaces/sample/queries/a b", got.RequestContext.HTTP.Path)
			assert.Equal(t, map[string]string{"namespace": "sample", "id": "a b"}, got.PathParameters)
			assert.Equal(t, "192.0.2.1", got.RequestContext.HTTP.SourceIP)
		}},
		{"a body that is not UTF-8 is base64", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/namespaces/sample/queries", bytes.NewReader([]byte{0xff, 0xfe}))
		}, func(t *testing.T, got events.APIGatewayV2HTTPRequest) {
			assert.True(t, got.IsBase64Encoded)
			assert.Equal(t, base64.StdEncoding.EncodeToString([]byte{0xff, 0xfe}), got.Body)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{resp: events.APIGatewayV2HTTPResponse{StatusCode: 204}}
			resp := serveOnce(t, rec, tt.req())
			require.Equal(t, 204, resp.StatusCode)
			tt.expect(t, rec.got)
		})
	}
}

func TestWriteResponseIsWhatAPIGatewayAnswers(t *testing.T) {
	tests := []struct {
		name       string
		resp       events.APIGatewayV2HTTPResponse
		err        error
		wantStatus int
		wantBody   string
		wantHeader map[string][]string
	}{
		{"status, headers, cookies, body", events.APIGatewayV2HTTPResponse{StatusCode: 202, Body: `{"a":1}`,
			Headers: map[string]string{"Content-Type": "application/json", "Location": "/x"}, Cookies: []string{"s=1"}},
			nil, 202, `{"a":1}`, map[string][]string{"Content-Type": {"application/json"}, "Location": {"/x"}, "Set-Cookie": {"s=1"}}},
		{"base64 body decoded", events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: base64.StdEncoding.EncodeToString([]byte("raw")), IsBase64Encoded: true},
			nil, 200, "raw", nil},
		{"bad base64 is a 500", events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: "!!", IsBase64Encoded: true},
			nil, 500, `{"message":"Internal Server Error"}`, nil},
		{"no status is 200", events.APIGatewayV2HTTPResponse{Body: "ok"}, nil, 200, "ok", nil},
		{"a handler error is API Gateway's bare 500", events.APIGatewayV2HTTPResponse{}, errors.New("boom"),
			500, `{"message":"Internal Server Error"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{resp: tt.resp, err: tt.err}
			resp := serveOnce(t, rec, httptest.NewRequest(http.MethodGet, "/", nil))
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.Equal(t, tt.wantBody, string(body))
			for k, v := range tt.wantHeader {
				assert.Equal(t, v, resp.Header.Values(k), k)
			}
		})
	}
}

func TestHTTPRefusesBodiesAPIGatewayWouldNotPass(t *testing.T) {
	rec := &recorder{}
	big := strings.NewReader(strings.Repeat("x", api.GatewayMaxBodyBytes+1))
	resp := serveOnce(t, rec, httptest.NewRequest(http.MethodPost, "/namespaces/sample/queries", big))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Contains(t, string(body), `"error":"too_large"`)
	assert.Empty(t, rec.got.RawPath, "the handler never saw it")
}

func TestHTTPReportsABodyThatCannotBeRead(t *testing.T) {
	rec := &recorder{}
	req := httptest.NewRequest(http.MethodPost, "/namespaces/sample/queries", io.MultiReader(strings.NewReader("{"), failingReader{}))
	resp := serveOnce(t, rec, req)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Empty(t, rec.got.RawPath, "the handler never saw it")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// The handler answers through the adapter exactly as it answers the event
// API Gateway sends for the same request (events/api-*.json's shape).
func TestHTTPAnswersAsTheHandler(t *testing.T) {
	h, _, _ := newHandler()
	cases := []struct{ method, path, body string }{
		{http.MethodPost, "/namespaces/sample/queries", `{"query":""}`},
		{http.MethodPost, "/namespaces/Bad%20NS/queries", `{"query":"q"}`},
		{http.MethodGet, "/namespaces/sample/queries/none", ""},
		{http.MethodPut, "/namespaces/sample/queries", ""},
		{http.MethodGet, "/elsewhere", ""},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/", api.HTTP(h.Handle))
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
			direct, err := h.Handle(context.Background(), request(c.method, c.path, c.body, nil))
			require.NoError(t, err)
			assert.Equal(t, direct.StatusCode, w.Code)
			assert.JSONEq(t, direct.Body, w.Body.String())
			assert.Equal(t, direct.Headers["Content-Type"], w.Header().Get("Content-Type"))
		})
	}
}

func TestFailAndReplyAreTheAPIsOwn(t *testing.T) {
	h, _, _ := newHandler()
	resp := h.Fail(context.Background(), "q", globalsearch.Errorf(globalsearch.KindInvalidInput, "bad %s", "x"))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.JSONEq(t, `{"error":"invalid_input","message":"bad x"}`, resp.Body)
	resp = h.Fail(context.Background(), "q", errors.New("disk on fire"))
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.NotContains(t, resp.Body, "disk")
	ok := api.Reply(http.StatusOK, map[string]int{"n": 1})
	assert.Equal(t, "application/json", ok.Headers["Content-Type"])
	assert.JSONEq(t, `{"n":1}`, ok.Body)
}
